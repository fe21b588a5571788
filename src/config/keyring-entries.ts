// A profile kept in the keyring is one entry: its merchant key, API key and cached tokens together, so
// that a command reads the keyring once (each entry costs a D-Bus connection and a session of its own,
// ~8 ms: docs/performance.md). The service name carries the config folder: two folders (MPAY_CONFIG_DIR)
// with a profile of the same name never share an entry. keyring.ts opens the OS keyring; this reads and
// writes mpay's entries in it, each read once a process.
import { realpathSync } from 'node:fs';
import { KeyringError } from '../common/errors.js';
import { openKeyring, type AtExit, type Keyring, type KeyringOpening } from './keyring.js';

/** A profile's one entry in the keyring (JSON): its keys, and its tokens by "env|baseUrl|fingerprint". */
export interface KeyringEntry {
  merchant_key?: string;
  api_key?: string;
  tokens?: Record<string, string>;
}

export class KeyringEntries {
  private memo?: Promise<KeyringOpening>;
  private probed = false;
  /** the keyring once opened by open(): the synchronous reads below use it */
  private opened?: Keyring;
  /** why open() found none */
  private unusable?: string;
  /** each profile's entry as read (or written) by this process */
  private readonly entries = new Map<string, KeyringEntry | undefined | Error>();

  constructor(
    /** the config folder */
    private readonly dir: string,
    private readonly environ: NodeJS.ProcessEnv,
    /** kills a keyring child should the run end while it runs (the IO's atExit, from the Factory) */
    private readonly atExit?: AtExit,
  ) {}

  /** The folder's real path (links resolved): one folder reached two ways is one keyring service. */
  get service(): string {
    let dir = this.dir;
    try {
      dir = realpathSync(this.dir);
    } catch {
      // not there yet: its name as given (absolute already)
    }
    return `mpay:${dir}`;
  }

  /**
   * Opens the OS keyring once for this process (with a write, read and delete of a test entry when
   * `probe`, which login and the move into the keyring ask for), or says why it cannot be used.
   */
  async open(opts: { probe?: boolean; profiles?: string[] } = {}): Promise<KeyringOpening> {
    if (!this.memo || (opts.probe && !this.probed)) {
      this.probed ||= Boolean(opts.probe);
      // The entries of the profiles kept there are read in the same request (one child process).
      const profiles = (opts.profiles ?? []).filter((p) => !this.entries.has(p));
      this.memo = openKeyring(this.service, this.environ, {
        probe: opts.probe,
        prefetch: profiles.map((p) => this.account(p)),
        atExit: this.atExit,
      }).then((opening) => {
        if ('keyring' in opening) {
          for (const p of profiles) {
            const text = opening.prefetched?.get(this.account(p));
            if (opening.prefetched) this.entries.set(p, this.parse(p, text));
          }
          this.readError = opening.readError;
        }
        return opening;
      });
    }
    const opening = await this.memo;
    if ('keyring' in opening) this.opened = opening.keyring;
    else this.unusable = opening.unavailable;
    return opening;
  }

  /** why the entries could not be read at the opening */
  private readError?: string;

  private parse(profile: string, text: string | undefined): KeyringEntry | undefined | Error {
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as KeyringEntry;
    } catch {
      return new KeyringError(`the keyring's entry of profile ${profile} is not mpay's`);
    }
  }

  /** Whether open() opened a keyring: the synchronous reads and writes below need one. */
  get isOpen(): boolean {
    return this.opened !== undefined;
  }

  /** The name of the keyring open() opened (none: it was not opened, or there is none). */
  get name(): string | undefined {
    return this.opened?.name;
  }

  /** Throws the KeyringError of a keyring open() did not open: why there is none. */
  requireOpen(): void {
    if (!this.opened) throw new KeyringError(this.unusable ?? 'the keyring was not opened');
  }

  private account(profile: string): string {
    return `profile:${profile}`;
  }

  /** The keyring's entry of a profile (undefined: there is none); throws KeyringError when unreadable. */
  entryOf(profile: string): KeyringEntry | undefined {
    this.requireOpen();
    if (!this.entries.has(profile))
      throw new KeyringError(this.readError ?? `the keyring's entry of profile ${profile} was not read`);
    const entry = this.entries.get(profile);
    if (entry instanceof Error) throw entry;
    return entry;
  }

  /** Writes a profile's entry (deletes it when `entry` is undefined); the keyring must be open. */
  async write(profile: string, entry: KeyringEntry | undefined): Promise<void> {
    if (entry) await this.opened!.set(this.account(profile), JSON.stringify(entry));
    else await this.opened!.delete(this.account(profile));
    this.entries.set(profile, entry);
  }

  /**
   * Deletes a profile's entry; undefined when done, else what is left and how to remove it by hand (the
   * keyring does not answer, or is not on this machine).
   */
  async drop(profile: string): Promise<string | undefined> {
    try {
      this.requireOpen();
      await this.opened!.delete(this.account(profile));
      this.entries.set(profile, undefined);
      return undefined;
    } catch (err) {
      return `the keyring entry of profile ${profile} (service ${JSON.stringify(this.service)}, account ${JSON.stringify(this.account(profile))}) could not be deleted: ${(err as Error).message}. Delete it with the keyring's own tool once it answers (secret-tool clear service … username … on Linux)`;
    }
  }
}
