/** DNS messages on the wire: header constants, name compression, integers, message and packet codecs. Only re-exports. */
export { CompressedWriter, compressMessage } from './compress';
export {
  CLASSIC_UDP_SIZE,
  EDNS_UDP_SIZE,
  FLAG_AA,
  FLAG_CD,
  FLAG_RD,
  FLAG_TC,
  headerOnlyResponse,
  MAX_MESSAGE,
  OPCODE,
  opcodeOf,
  RCODE,
} from './header';
export { u16, u32, u48 } from './integers';
export { decodeMessage, type Message, type WireRecord } from './message';
export {
  decodeAnswer,
  DNSSEC_OK,
  encodeAnswer,
  encodeMessage,
  encodeName,
  encodeRdata,
  messageLength,
  typeName,
  typeNumber,
} from './packet';
