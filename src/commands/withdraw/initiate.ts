import { InitiateCommand } from '../../cli/initiate-command.js';

export default class WithdrawInitiate extends InitiateCommand {
  static override summary =
    'Withdraw initiate only: prints the initiated payment with its hash token and gateways';
  static override examples = [
    '<%= config.bin %> withdraw initiate --currency GHS --amount 40 --first-name Kofi --phone +233201234567 --email kofi@example.com --json',
  ];
  protected kind = 'withdraw' as const;
}
