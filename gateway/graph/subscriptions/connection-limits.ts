/** Limits on long-lived streams (GraphQL subscriptions over SSE and the REST live stream), shared by both. */
export interface StreamLimits {
  /** Open event streams in this process, in total. */
  maxConnections: number;
  /** Open event streams per client address. */
  maxConnectionsPerClient: number;
  /** Operations one single-connection-mode stream may carry at once. */
  maxSubscriptionsPerConnection: number;
}

/** Why a stream was refused: which limit, and the message that names it. */
export interface Refusal {
  limit: 'liveMaxConnections' | 'liveMaxConnectionsPerClient';
  message: string;
}

/**
 * Counts open streams in total and per client address. `open` either takes a slot (and returns the function that
 * frees it, idempotent) or says which limit refused it.
 */
export class ConnectionLimiter {
  private total = 0;
  private readonly perClient = new Map<string, number>();

  constructor(private readonly limits: Pick<StreamLimits, 'maxConnections' | 'maxConnectionsPerClient'>) {}

  get open(): number {
    return this.total;
  }

  /** Client addresses holding at least one stream (the leak test checks it drops to zero). */
  get clients(): number {
    return this.perClient.size;
  }

  tryOpen(client: string): { release: () => void } | { refused: Refusal } {
    if (this.total >= this.limits.maxConnections) {
      return {
        refused: {
          limit: 'liveMaxConnections',
          message: `too many live connections: at most ${this.limits.maxConnections} are served at once (liveMaxConnections)`,
        },
      };
    }
    const mine = this.perClient.get(client) ?? 0;
    if (mine >= this.limits.maxConnectionsPerClient) {
      return {
        refused: {
          limit: 'liveMaxConnectionsPerClient',
          message: `too many live connections from ${client}: at most ${this.limits.maxConnectionsPerClient} per client address (liveMaxConnectionsPerClient)`,
        },
      };
    }
    this.total++;
    this.perClient.set(client, mine + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.total--;
        const left = (this.perClient.get(client) ?? 1) - 1;
        if (left > 0) this.perClient.set(client, left);
        else this.perClient.delete(client);
      },
    };
  }
}
