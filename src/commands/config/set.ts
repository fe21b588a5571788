import * as Args from '@oclif/core/args';
import { BaseCommand } from '../../cli/base-command.js';
import { UsageError } from '../../api/errors.js';
import { settingKeys } from '../../config/store.js';

export default class ConfigSet extends BaseCommand<typeof ConfigSet> {
  static override summary =
    'Set a setting of the current profile (env, timeout, <env>.base_url, <env>.wallet_gateways)';
  static override examples = [
    '<%= config.bin %> config set stage.base_url https://stage.example.com',
    '<%= config.bin %> config set env stage',
    '<%= config.bin %> config set timeout 60 --profile acme',
    '<%= config.bin %> config set live.wallet_gateways 2,5,12   # these ids need the wallet address update',
    '<%= config.bin %> config set wallet_gateways none   # back to the built-in rule',
  ];
  static override args = {
    key: Args.string({
      description: 'setting',
      required: true,
      options: [...settingKeys],
    }),
    value: Args.string({ description: 'value', required: true }),
  };

  async run(): Promise<void> {
    const { isEnvironment, parseGatewayList } = await import('../../config/store.js');
    const { checkBaseUrl, normalizeBaseUrl } = await import('../../api/client.js');
    const store = await this.factory.store();
    const name = this.flags.profile ?? store.currentProfile();
    const p = { ...store.profile(name) };
    const { key, value } = this.args;
    if (key === 'env') {
      if (!isEnvironment(value))
        throw new UsageError(`Unknown environment "${value}"`, { hint: 'One of sandbox, stage, live' });
      p.env = value;
    } else if (key === 'timeout') {
      const n = Number(value);
      if (!Number.isFinite(n) || n <= 0)
        throw new UsageError(`Invalid timeout "${value}"`, { hint: 'Seconds, e.g. 30' });
      p.timeout = n;
    } else if (key.endsWith('wallet_gateways')) {
      // Bare wallet_gateways is for the environment in effect (--env, MPAY_ENV, or the profile's).
      const env = key.includes('.') ? key.split('.')[0]! : (this.flags.env ?? p.env ?? 'sandbox');
      if (!isEnvironment(env)) throw new UsageError(`Unknown environment "${env}"`);
      const ids = parseGatewayList(value);
      if (!ids)
        throw new UsageError(`Invalid gateway list "${value}"`, {
          hint: 'Gateway ids separated by commas, e.g. 2,5,12 (ids from `mpay balances --json`), or "none"',
        });
      const lists = { ...p.walletGateways };
      if (ids.length) lists[env] = ids;
      else delete lists[env];
      p.walletGateways = lists;
      await store.saveProfile(name, p);
      const shown = ids.length ? ids.join(',') : 'none (the wallet rule decides)';
      await this.emit(
        { profile: name, key: `${env}.wallet_gateways`, value: ids },
        () => `${name}: ${env}.wallet_gateways = ${shown}`,
      );
      return;
    } else {
      const env = key.split('.')[0]!;
      if (!isEnvironment(env)) throw new UsageError(`Unknown setting ${key}`);
      const { url, stripped } = normalizeBaseUrl(value);
      if (stripped) this.io.warn(`${value} ends in /restapi/v1, which mpay adds itself; saving ${url}`);
      checkBaseUrl(url);
      p.baseUrls = { ...p.baseUrls, [env]: url };
    }
    await store.saveProfile(name, p);
    await this.emit({ profile: name, key, value }, () => `${name}: ${key} = ${value}`);
  }
}
