export { setting, metaOf, settingsRegistry, type SettingMeta, type SettingsShape } from './setting';
export { describeType, defaultOf, formatDefault, unwrap } from './describe';
export { settingEntries, envNames, fromEnv, type SettingEntry } from './entries';
export { ConfigError, parseSettings } from './errors';
export { portNumber, textBool, commaList, anyCaseEnum } from './values';
