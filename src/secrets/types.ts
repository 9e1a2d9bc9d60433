/** The one shape every secret store has: OAuth tokens (part A) and asked-for credentials (part B) both use it. */
export interface SecretStore {
  /** `keychain`: the OS credential store; `file`: a 0600 file in the state dir, where no keychain works. */
  readonly kind: 'keychain' | 'file';
  /** Where the secrets are, in words a person can act on (the keychain's name, or the file's path). */
  readonly location: string;
  get(service: string, account: string): Promise<string | undefined>;
  set(service: string, account: string, value: string): Promise<void>;
  /** True when a secret was there and is now gone. */
  delete(service: string, account: string): Promise<boolean>;
}

export interface SecretStoreOptions {
  /** The mcpx state dir: the file fallback lives here. */
  stateDir: string;
  /** `auto` (default): the keychain when it answers, else the file. `MCPX_SECRET_STORE` sets it from the environment. */
  prefer?: 'auto' | 'keychain' | 'file';
}
