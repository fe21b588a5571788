import { ProcessCommand } from '../../cli/process-command.js';

export default class DepositProcess extends ProcessCommand {
  static override summary = 'Deposit processed only (the transaction must be in status initiated)';
  static override examples = [
    '<%= config.bin %> deposit process 3f9a…c2',
    '<%= config.bin %> deposit process 3f9a…c2 --phone-number +233201234567 --receiver-email ops@example.com --json',
  ];
  protected kind = 'deposit' as const;
}
