/** TSIG (RFC 8945): keys and BIND key files, signing and verifying messages. Only re-exports. */
export { parseKeyFile, parseKeySpec, readKeyFile, type TsigKey } from './keyfile';
export { parseTsig, signMessage, signResponse, verifyMessage, type VerifyResult, verifyStreamMessage } from './tsig';
export { nameToWire, readName, recordOffsets, skipName, WireError } from './wire-walk';
