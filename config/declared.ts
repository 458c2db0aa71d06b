/**
 * The declared registries as both sides read them: the resources of the resource API
 * (./resources.json), the permission tree (./permissions.json) and the client routes
 * (./routes.json), each with the admin entities merged in that their views declare.
 *
 * An admin entity's view (schemas/views/<v>.json) carries an `admin` block: its base
 * path, its table declaration (as resources.json's `table`) and its menu place. From
 * that one declaration come the resource (module = the view's `permission`), the
 * permission module with the four rights view/add/edit/delete, the list route with its
 * menu entry, and the form route when the form is a page. So a new admin entity is a
 * schema, a view, a migration and locale keys; nothing here names one.
 *
 * Pure (no node, browser or React imports): the server, the client and .umirc.ts (umi
 * routes at build time) import it. A name declared twice throws.
 */
import permissionsFile from './permissions.json';
import resourcesFile from './resources.json';
import routesFile from './routes.json';
import { viewFiles } from '../src/shared/generated/catalog';

export interface AdminMenu {
  /** A sidebar group of routes.json `groups`. */
  group: string;
  /** A name in the icon registry (src/components/icons.tsx). */
  icon: string;
  /** The route (by name) the entry follows in the sidebar; absent: last of its group. */
  after?: string;
}

export interface AdminDeclaration {
  /** The resource's base path, e.g. /api/bdt/v1/hisInterface. */
  base: string;
  /** As config/resources.schema.json's `table` (checked against it in tests/unit/resourceRegistry.test.ts). */
  table: Record<string, unknown>;
  menu: AdminMenu;
  /** The permissions.json group the module joins; default "system" (the admin centre's modules). */
  permissionGroup?: string;
}

/** What this module reads of a view; the full type is src/shared/schema/types.ts `View`. */
interface ViewDecl {
  $id: string;
  entity: string;
  resource: string;
  permission: string;
  routes: { list: string; form?: string };
  admin?: AdminDeclaration;
}

export interface ResourceEntry {
  base: string;
  entity?: string;
  module?: string;
  actions?: Partial<Record<'view' | 'add' | 'edit' | 'delete', string>>;
  table?: Record<string, unknown>;
}

export interface RouteEntry {
  path: string;
  /** Locale key suffix: the visible text is `menu.<name>` (see menuKey). */
  name: string;
  /** A name in the icon registry, src/components/icons.tsx. */
  icon: string;
  group?: string;
  hideInMenu?: boolean;
  /** No notification pop-ups on this route (a wall screen nobody works at). */
  quiet?: boolean;
  /** A page under src/pages; absent means the shared "not yet available" page. */
  component?: string;
  /** Module key (config/permissions.json) whose rights show the route, or several any of which does; absent: any logged-in user. */
  permission?: string | string[];
  /** The declared statistics view (schemas/stats/<stats>.json) the statistics page (src/pages/stats) renders. */
  stats?: string;
  /** The view (schemas/views/<view>.json) a resource page renders. */
  view?: string;
}

export interface PermissionGroup {
  key: string;
  modules: string[];
}

/** The rights every admin entity's module has: they gate the five calls and the buttons. */
export const ADMIN_RIGHTS = Object.freeze(['view', 'add', 'edit', 'delete'] as const);
const DEFAULT_PERMISSION_GROUP = 'system';

export interface AdminEntity {
  view: string;
  decl: ViewDecl & { admin: AdminDeclaration };
}

/** Every view declaring an admin entity, by view name. */
export function adminEntities(files: Record<string, unknown> = viewFiles): AdminEntity[] {
  return Object.entries(files as Record<string, ViewDecl>)
    .filter(([, v]) => v.admin)
    .map(([view, decl]) => ({ view, decl: decl as AdminEntity['decl'] }));
}

function withoutComment<T>(obj: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(obj).filter(([k]) => !k.startsWith('$')));
}

/** resources.json plus each admin entity's resource. */
export function deriveResources(base: Record<string, ResourceEntry>, admins: AdminEntity[]): Record<string, ResourceEntry> {
  const out = { ...withoutComment(base) };
  for (const { view, decl } of admins) {
    if (out[decl.resource]) throw new Error(`resource ${decl.resource} (view ${view}) is declared twice`);
    out[decl.resource] = {
      base: decl.admin.base,
      ...(decl.entity !== decl.resource ? { entity: decl.entity } : {}),
      module: decl.permission,
      table: decl.admin.table,
    };
  }
  return out;
}

/** permissions.json plus each admin entity's module (view, add, edit, delete) in its group. */
export function derivePermissions(
  base: { groups: PermissionGroup[]; modules: Record<string, string[]> },
  admins: AdminEntity[],
): { groups: PermissionGroup[]; modules: Record<string, string[]> } {
  const modules = { ...base.modules };
  const groups = base.groups.map((g) => ({ ...g, modules: [...g.modules] }));
  for (const { view, decl } of admins) {
    const key = decl.permission;
    if (modules[key]) throw new Error(`permission module ${key} (view ${view}) is declared twice`);
    modules[key] = [...ADMIN_RIGHTS];
    const groupKey = decl.admin.permissionGroup ?? DEFAULT_PERMISSION_GROUP;
    const group = groups.find((g) => g.key === groupKey);
    if (!group) throw new Error(`view ${view}: no permission group ${groupKey} in config/permissions.json`);
    group.modules.push(key);
  }
  return { groups, modules };
}

/**
 * routes.json's layout routes plus each admin entity's list route (in the menu, after
 * `menu.after` or last of its group) and, for a form that is a page, its form route
 * (hidden from the menu, text menu.<view>Form).
 */
export function deriveLayoutRoutes(base: RouteEntry[], admins: AdminEntity[]): RouteEntry[] {
  const out = [...base];
  for (const { view, decl } of admins) {
    const place = decl.admin.menu;
    const added: RouteEntry[] = [
      { path: decl.routes.list, name: view, icon: place.icon, group: place.group, permission: decl.permission, view, component: 'resource/List' },
    ];
    if (decl.routes.form) {
      added.push({ path: decl.routes.form, name: `${view}Form`, icon: place.icon, group: place.group, hideInMenu: true, permission: decl.permission, view, component: 'resource/Form' });
    }
    let at: number;
    if (place.after) {
      at = out.findIndex((r) => r.name === place.after) + 1;
      if (at === 0) throw new Error(`view ${view}: menu.after names no route ${place.after}`);
    } else {
      const last = out.map((r) => r.group).lastIndexOf(place.group);
      at = last === -1 ? out.length : last + 1;
    }
    out.splice(at, 0, ...added);
  }
  return out;
}

const ADMINS = adminEntities();

/** Every resource of the resource API by name (resources.json and the admin views'). */
export const RESOURCE_REGISTRY: Readonly<Record<string, ResourceEntry>> = Object.freeze(
  deriveResources(resourcesFile as unknown as Record<string, ResourceEntry>, ADMINS),
);

const PERMISSIONS = derivePermissions(permissionsFile, ADMINS);
/** The function permission tree: modules by group, for the role form. */
export const PERMISSION_GROUPS: readonly PermissionGroup[] = PERMISSIONS.groups;
/** Every permission module with its rights. */
export const PERMISSION_MODULES: Readonly<Record<string, string[]>> = PERMISSIONS.modules;

/** The client routes: routes.json with the admin views' routes in the layout list. */
export const ROUTE_TABLE = {
  home: routesFile.home,
  groups: routesFile.groups as Array<{ name: string; icon: string; flat?: boolean }>,
  public: routesFile.public as RouteEntry[],
  fullScreen: routesFile.fullScreen as RouteEntry[],
  layout: deriveLayoutRoutes(routesFile.layout as RouteEntry[], ADMINS),
};
