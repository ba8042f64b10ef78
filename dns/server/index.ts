/** The authoritative server: transports (UDP, TCP), the request pipeline, answering, and UPDATE, AXFR and NOTIFY. Only re-exports. */
export { type AnswerCacheLimits } from './answer/answer-cache';
export { type AnswerSigner } from './answer/answer';
export { encodeResponse } from './answer/encode';
export { type NotifyTarget, sendNotify } from './operations/notify';
export {
  type TransferAccess,
  transferAllowed,
  transferHandler,
  zoneTransfer,
  ZoneTransfers,
} from './operations/transfer';
export { processUpdate } from './operations/update';
export { ServerCookies } from './pipeline/cookies';
export {
  DEFAULT_RRL,
  parseNetwork,
  ResponseRateLimiter,
  RRL,
  RRL_CATEGORIES,
  type RrlLog,
  type RrlMode,
  type RrlOptions,
  type RrlVerdict,
} from './pipeline/rrl';
export {
  collectReplies,
  type ExtraHandlers,
  notifyAnswer,
  notifyReply,
  type Remote,
  type Replies,
  Responder,
} from './pipeline/respond';
export { safeReport } from './transport/serve';
export * from './stats/dns-stats';
export { type DnsServer, startDnsServer, type UdpShare } from './transport/server';
export { type TcpLimits } from './transport/tcp';
export { bindBatchedUdp, serveBatchedUdp, udpBatchAddon } from './transport/udp-batch';
export { serveUdp, type UdpAnswer } from './transport/udp';
