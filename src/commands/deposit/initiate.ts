import { InitiateCommand } from '../../cli/initiate-command.js';

export default class DepositInitiate extends InitiateCommand {
  static override summary =
    'Deposit initiate only: prints the initiated payment with its hash token and gateways';
  static override examples = [
    '<%= config.bin %> deposit initiate --currency GHS --country GH --amount 25 --first-name Ama --phone +233201234567 --email ama@example.com',
    '<%= config.bin %> deposit initiate --currency GHS --amount 25 --first-name Ama --phone +233201234567 --email ama@example.com --json | jq -r .has_token',
  ];
  protected kind = 'deposit' as const;
}
