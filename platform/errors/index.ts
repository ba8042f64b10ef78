export {
  ERROR_CODES,
  isErrorCode,
  statusOfCode,
  type AnyErrorCode,
  type ErrorCode,
  type ErrorCodeSpec,
  type ErrorInterface,
} from './codes';
export type { ErrorExtras, ErrorShape } from './shape';
