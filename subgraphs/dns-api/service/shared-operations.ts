import { redisKey, type RedisLink } from '../../../platform/redis';
import type { SharedOperation, SharedOperations } from './operations';

/** Ids are UUIDs (randomUUID): anything else is looked up nowhere. */
const OPERATION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Operations kept in Redis, one key per operation (`<prefix>:dns-api-operation:<id>`), expiring by themselves. */
export class RedisSharedOperations implements SharedOperations {
  private readonly base: string;

  constructor(
    private readonly link: RedisLink,
    /** REDIS_PREFIX. */
    prefix: string,
  ) {
    this.base = redisKey(prefix, 'dns-api-operation', '');
  }

  private key(id: string): string {
    return `${this.base}${id}`;
  }

  async put(operation: SharedOperation, ttlMs: number): Promise<void> {
    await this.link.run((client) =>
      client.set(this.key(operation.id), JSON.stringify(operation), { PX: Math.max(1, Math.ceil(ttlMs)) }),
    );
  }

  async get(id: string): Promise<SharedOperation | undefined> {
    if (!OPERATION_ID.test(id)) return undefined;
    const text = await this.link.run((client) => client.get(this.key(id)));
    return typeof text === 'string' ? (JSON.parse(text) as SharedOperation) : undefined;
  }
}
