// The action protocol of `/api.php` (docs/dns-tool.md): action names and what each requires, how a request's
// parameters are read, the checks of type and TTL, the tool's errors and their wire form, the help page. The subgraph
// and the REST adapter both use it; the adapter imports nothing else of the subgraph.
export { ACTIONS, actionSpec, type ActionParameter, type ActionSpec } from './actions';
export { bearerCredential } from '../../bearer';
export { ToolError, toolErrorBody, toolErrorBodyOf, toolErrorFields, toolErrors, type ToolErrorBody } from './errors';
export { helpPage } from './help';
export { EDITABLE_TYPES, editableType, ptrWanted, ttlOf, type EditableType } from './params';
export { ToolRequest, type Params } from './request';
export { isSessionId, SESSION_COOKIE } from './session-id';
