import { type RedisLink, redisKey } from '../../../platform/redis';
import type { SharedQueryStore } from './query-store';

export interface RedisQueryStoreOptions {
  /** REDIS_PREFIX: keys are `<prefix>:<the store's key>`, i.e. `<prefix>:apq:<sha256>`. */
  prefix: string;
  /** How long a registered document is kept (its bound in Redis: replicas register, none evicts). */
  ttlSeconds: number;
}

/**
 * The APQ documents every replica shares, in Redis. While Redis is away a look-up is a miss and a registration is
 * skipped, at once and without an error to the client: it then sends the text again, as on a first request.
 */
export class RedisQueryStore implements SharedQueryStore {
  constructor(
    readonly link: RedisLink,
    private readonly options: RedisQueryStoreOptions,
  ) {}

  private key(key: string): string {
    return redisKey(this.options.prefix, key);
  }

  async get(key: string): Promise<string | undefined> {
    if (!this.link.up) return undefined;
    try {
      return (await this.link.run((client) => client.get(this.key(key)))) ?? undefined;
    } catch {
      return undefined; // the link reports an outage once; a miss costs the client one round trip
    }
  }

  async set(key: string, value: string): Promise<void> {
    if (!this.link.up) return;
    try {
      await this.link.run((client) => client.set(this.key(key), value, { EX: this.options.ttlSeconds }));
    } catch {
      // as above: the document is still in this process's store
    }
  }

  close(): Promise<void> {
    return this.link.close();
  }
}
