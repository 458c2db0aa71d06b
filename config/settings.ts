/**
 * The common settings a user starts from (spec section 3), shared by the server (user
 * info merges saved values over them) and the client (the settings dialog's "restore
 * defaults"), pure like ./formats.ts: ./defaults.json, then defaults that follow the
 * user's rights.
 *
 * Notices (examNotice) are on by default for whoever writes or reviews reports, in the
 * report centre or the remote centre, for the modules they do that in: otherwise
 * nothing tells a radiologist that work has arrived. Everyone else keeps them off.
 */
import defaults from './defaults.json';

type Settings = Record<string, Record<string, unknown>>;
/** Rights by module, as user info's permissionMap has them. */
type Rights = Record<string, readonly string[] | undefined> | null | undefined;

/** The notice modules (codes/noticeModule.json) the user writes or reviews in. */
export function workModules(rights: Rights): string[] {
  return ['report', 'remote'].filter((m) => rights?.[m]?.includes('write') || rights?.[m]?.includes('verify'));
}

/** The defaults for this user: ./defaults.json with notices on for those who write or review. */
export function settingDefaults(rights: Rights): Settings {
  const out: Settings = JSON.parse(JSON.stringify(defaults.commonSetting));
  const modules = workModules(rights);
  if (modules.length) out.examNotice = { ...out.examNotice, noticeOpen: true, modelList: modules };
  return out;
}

/** What user info answers: each module's defaults for this user, overridden key by key by what they saved. */
export function commonSettings(rights: Rights, saved: Record<string, object> | null | undefined): Settings {
  const out: Settings = {};
  for (const [module, value] of Object.entries(settingDefaults(rights))) out[module] = { ...value, ...(saved?.[module] ?? {}) };
  return out;
}
