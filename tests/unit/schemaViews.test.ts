/**
 * The schema files and views, checked as data (no rendering). Scenarios:
 * - every file under schemas/ compiles with ajv in full strict mode (the server's
 *   Fastify ajv is strict about unknown keywords); relative $refs resolve
 * - entities accept and refuse what the spec says (mobile, password, conditional
 *   requirements: password on create, a subordinate hospital's parent, custom scopes)
 * - every view validates against views/_view.schema.json; broken views are refused
 * - every field a view names exists in its entity, except its virtual form fields, which
 *   must not (and are never list columns); options name known resources and code
 *   tables; permissions are modules of config/permissions.json
 * - row actions: unique keys, a permission that is an action of the view's module (or
 *   module:action of a module that has it), visibleWhen (one condition or several,
 *   present or in) and path placeholders naming entity fields; a view's `actions` names
 *   rights of its module; a pick names a view and fields of its entity, a dialog (row
 *   or toolbar) a registered one, its `then` a call of the view
 * - field hints name entity fields: fill targets, suffixField, a form-root dependsOn
 * - routes: each route's view exists, a view's list/form routes exist in
 *   config/routes.json and serve it; src/shared/schema/views.ts and schemas.ts list every file
 * - locale texts: every code value, entity field (nested too), virtual field, entity
 *   title, form group, row action (link, question, success) and permission
 *   group/module/action has its text in zh-CN, en-US and ru-RU
 */
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { customFormats } from '../../config/formats';
// The registries as the app reads them: the JSON files with the admin entities their views declare.
import { PERMISSION_GROUPS, PERMISSION_MODULES, ROUTE_TABLE as routes } from '../../config/declared';
import { resources } from '../../locales';
import { entityModel, type FieldInfo } from '@/shared/schema/model';
import { resourceNames } from '@/schema/resource';
import { codeTableNames, codeValues, entityNames, schemaIds } from '@/shared/schema/schemas';
import type { View } from '@/shared/schema/types';
import { viewForm, views, viewName } from '@/shared/schema/views';
import { pathFields } from '@/shared/schema/pathTemplate';
import { rowActionTextKey } from '@/schema/rowActions';
import '@/features';
import { dialogNames } from '@/schema/dialogs';

const permissions = { groups: PERMISSION_GROUPS, modules: PERMISSION_MODULES };
const root = path.resolve(__dirname, '..', '..');
const schemasDir = path.join(root, 'schemas');

function readJson(file: string) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : e.name.endsWith('.json') ? [path.join(dir, e.name)] : []));
}

const allFiles = filesUnder(schemasDir).map((f) => ({ file: path.relative(schemasDir, f), json: readJson(f) }));
const viewFiles = allFiles.filter((f) => f.file.startsWith('views/') && !f.file.startsWith('views/_'));
// Declared statistics views are checked by tests/unit/statsCompile.test.ts.
const schemaFiles = allFiles.filter((f) => !viewFiles.includes(f) && !f.file.startsWith('stats/'));

function strictAjv() {
  const ajv = new Ajv({ strict: true, allErrors: true });
  addFormats(ajv);
  // Strict mode refuses unknown formats; these are the server's own (server/app.ts).
  customFormats(ajv);
  for (const { json } of schemaFiles) ajv.addSchema(json);
  return ajv;
}

describe('schema files', () => {
  test.each(allFiles.map((f) => [f.file, f.json]))('%s has $id equal to its path', (file, json) => {
    expect(json.$id).toBe(file);
  });

  test.each(schemaFiles.map((f) => [f.file]))('%s compiles in ajv strict mode', (file) => {
    const ajv = strictAjv();
    expect(() => ajv.getSchema(file)).not.toThrow();
    expect(ajv.getSchema(file)).toBeDefined();
  });

  describe('entities say what the spec says', () => {
    const ajv = strictAjv();
    const valid = (id: string, data: unknown) => (ajv.getSchema(id) as (d: unknown) => boolean)(data);
    const member = [{ hospitalId: 1, roleId: 2 }];
    const user = { mobile: '13800000001', name: '张三', status: 1, memberships: member };

    test('user: mobile rule, password 8-16 of allowed characters, required on create only', () => {
      expect(valid('entities/user.json', { ...user, password: 'Demo@2026' })).toBe(true);
      expect(valid('entities/user.json', user)).toBe(false);
      expect(valid('entities/user.json', { ...user, id: 3 })).toBe(true);
      expect(valid('entities/user.json', { ...user, id: 3, mobile: '+8613800000001' })).toBe(true);
      expect(valid('entities/user.json', { ...user, id: 3, mobile: '12800000001' })).toBe(false);
      expect(valid('entities/user.json', { ...user, password: 'short1!' })).toBe(false);
      expect(valid('entities/user.json', { ...user, password: 'with space 123' })).toBe(false);
      expect(valid('entities/user.json', { ...user, id: 3, memberships: [] })).toBe(false);
      expect(valid('entities/user.json', { ...user, id: 3, username: 'abc' })).toBe(false);
    });

    test('user: a custom data scope needs at least one complete condition', () => {
      const scoped = (dataScope: unknown) => valid('entities/user.json', { ...user, id: 3, dataScope });
      expect(scoped({ mode: 'all' })).toBe(true);
      expect(scoped({ mode: 'custom', logic: 'and', conditions: [] })).toBe(false);
      expect(scoped({ mode: 'custom', logic: 'or', conditions: [{ field: 'hospitalId', op: 'eq', value: '1' }] })).toBe(true);
      expect(scoped({ mode: 'custom', logic: 'or', conditions: [{ field: 'hospitalId', op: 'like', value: '1' }] })).toBe(false);
    });

    test('org: a subordinate hospital needs its parent; codes are letters, digits, _', () => {
      expect(valid('entities/org.json', { code: 'H_01', name: '一院', kind: 'subordinate' })).toBe(false);
      expect(valid('entities/org.json', { code: 'H_01', name: '一院', kind: 'subordinate', parentId: null })).toBe(false);
      expect(valid('entities/org.json', { code: 'H_01', name: '一院', kind: 'subordinate', parentId: 2 })).toBe(true);
      expect(valid('entities/org.json', { code: 'R1', name: '区域', kind: 'region', parentId: null })).toBe(true);
      expect(valid('entities/org.json', { code: 'R-1', name: '区域', kind: 'region' })).toBe(false);
      expect(valid('entities/org.json', { code: 'R1', name: '区域', kind: 'region', uploadIp: '300.1.1.1' })).toBe(false);
    });

    test('role: custom scope needs conditions; department shortcut is letters', () => {
      expect(valid('entities/role.json', { name: '医生', dataScope: 'custom' })).toBe(false);
      expect(valid('entities/role.json', { name: '医生', dataScope: 'own', permissions: { 'system.user': ['view'] } })).toBe(true);
      expect(valid('entities/role.json', { name: '医生', dataScope: 'own', permissions: { report: ['view', 'view'] } })).toBe(false);
      expect(valid('entities/department.json', { hospitalId: 1, code: 'FS01', name: '放射科', shortcut: 'FSK' })).toBe(true);
      expect(valid('entities/department.json', { hospitalId: 1, code: 'FS01', name: '放射科', shortcut: 'FS1' })).toBe(false);
    });

    test('readOnly fields are marked, the password is writeOnly', () => {
      const u = entityModel('user');
      expect(u.fields.filter((f) => f.readOnly).map((f) => f.name)).toEqual([
        'id',
        'hasSignature',
        'lockedUntil',
        'lastLoginAt',
        'hospitalNames',
        'roleNames',
        'governed',
      ]);
      expect(u.fields.filter((f) => f.writeOnly).map((f) => f.name)).toEqual(['password']);
    });
  });
});

describe('views', () => {
  const ajv = strictAjv();
  const validate = ajv.getSchema('views/_view.schema.json') as ((d: unknown) => boolean) & { errors?: unknown };
  const byName = Object.entries(views) as Array<[string, View]>;
  const moduleKeys = Object.keys(permissions.modules);
  const layout = routes.layout as Array<{ path: string; view?: string; component?: string }>;

  test.each(viewFiles.map((f) => [f.file, f.json]))('%s validates against _view.schema.json', (_file, json) => {
    const ok = validate(json);
    expect(validate.errors ?? null).toBeNull();
    expect(ok).toBe(true);
  });

  test('the view schema refuses broken views', () => {
    const user = views.user;
    expect(validate({ ...user, surprise: 1 })).toBe(false);
    expect(validate({ ...user, routes: { list: '/user' } })).toBe(false); // a page form needs its route
    expect(validate({ ...user, form: { ...user.form, mode: 'modal' } })).toBe(false); // a modal has none
    expect(validate({ ...user, fields: { name: { options: { resource: 'org', code: 'sex' } } } })).toBe(false);
    expect(validate({ ...user, list: { columns: ['name', 'name'] } })).toBe(false);
    expect(validate({ ...user, fields: { signature: { virtual: true } } })).toBe(false); // a virtual field needs its component
    const unlock = user.rowActions![0];
    const withAction = (patch: object) => validate({ ...user, rowActions: [{ ...unlock, ...patch }] });
    expect(withAction({})).toBe(true);
    expect(withAction({ call: { method: 'DELETE', path: unlock.call.path } })).toBe(false);
    expect(withAction({ call: { method: 'POST', path: 'https://elsewhere/x' } })).toBe(false);
    expect(withAction({ call: { method: 'POST', path: '/api/x/{ id }' } })).toBe(false);
    // The action of the view's module, or module:action naming another module (image:manualLink on the exam list).
    expect(withAction({ permission: 'image:manualLink' })).toBe(true);
    expect(withAction({ permission: 'system.user:' })).toBe(false);
    expect(withAction({ permission: ':unlock' })).toBe(false);
    expect(withAction({ permission: 'a:b:c' })).toBe(false);
    // A pick: a view and a call; a dialog: a registered component's name.
    const pick = { view: 'study', filters: { matched: false, hospitalId: '{hospitalId}' }, call: { method: 'POST', path: '/api/x/{id}/match', body: { studyId: '{picked.id}' } } };
    expect(validate({ ...user, rowActions: [{ key: 'match', permission: 'view', pick }] })).toBe(true);
    expect(validate({ ...user, rowActions: [{ key: 'match', permission: 'view', pick: { ...pick, view: undefined } }] })).toBe(false);
    expect(validate({ ...user, rowActions: [{ key: 'match', permission: 'view', pick, call: unlock.call }] })).toBe(false);
    expect(validate({ ...user, rowActions: [{ key: 'images', permission: 'view', dialog: { component: 'ExamImages', then: 'unlock' } }] })).toBe(true);
    expect(validate({ ...user, rowActions: [{ key: 'images', permission: 'view', dialog: { component: 'examImages' } }] })).toBe(false);
    expect(validate({ ...user, toolbarActions: [{ key: 'upload', permission: 'image:upload', dialog: { component: 'DicomUpload' } }] })).toBe(true);
    expect(validate({ ...user, toolbarActions: [{ key: 'upload', permission: 'image:upload' }] })).toBe(false);
    expect(withAction({ call: { ...unlock.call, body: { id: '{id}', nested: { a: 1 } } } })).toBe(false);
    expect(validate({ ...user, fields: { name: { dicom: 'DT' } } })).toBe(false);
    expect(withAction({ visibleWhen: { field: 'lockedUntil' } })).toBe(false);
    expect(withAction({ visibleWhen: { field: 'lockedUntil', in: [] } })).toBe(false);
    expect(withAction({ visibleWhen: { field: 'lockedUntil', in: [1], present: true } })).toBe(false);
    expect(withAction({ visibleWhen: [] })).toBe(false);
    // A screen to open instead of a call: exactly one of the two, a client path with {field} query values.
    const opener = { key: 'history', permission: 'history', open: { path: '/history?patientId={patientId}' } };
    expect(validate({ ...user, rowActions: [opener] })).toBe(true);
    expect(validate({ ...user, rowActions: [{ ...opener, open: { path: '/history' } }] })).toBe(true);
    expect(validate({ ...user, rowActions: [{ ...opener, call: unlock.call }] })).toBe(false);
    expect(validate({ ...user, rowActions: [{ key: 'history', permission: 'history' }] })).toBe(false);
    expect(validate({ ...user, rowActions: [{ ...opener, open: { path: 'https://elsewhere/x' } }] })).toBe(false);
    expect(validate({ ...user, rowActions: [{ ...opener, open: { path: '/history?patientId={ patientId }' } }] })).toBe(false);
    expect(validate({ ...user, list: { ...user.list, export: { call: '/api/ris/v1/exam/export', range: 'createdAt' } } })).toBe(true);
    expect(validate({ ...user, list: { ...user.list, export: { call: 'exam/export', range: 'createdAt' } } })).toBe(false);
    // An export names the range it needs.
    expect(validate({ ...user, list: { ...user.list, export: { call: '/api/ris/v1/exam/export' } } })).toBe(false);
    expect(withAction({ visibleWhen: [{ field: 'status', in: [1, 'x', true] }, { field: 'lockedUntil', present: true }] })).toBe(true);
    expect(validate({ ...user, actions: { edit: 'modifyUser' } })).toBe(true);
    expect(validate({ ...user, actions: { approve: 'x' } })).toBe(false);
    expect(validate({ ...user, fields: { name: { fill: { with: 'soundex', into: ['username'] } } } })).toBe(false);
    expect(validate({ ...user, fields: { name: { fill: { with: 'pinyin', into: [] } } } })).toBe(false);
    expect(validate({ ...user, rowActions: [] })).toBe(false);
  });

  test('the generated catalogue holds every view file, under its own name', () => {
    expect(Object.keys(views).sort()).toEqual(viewFiles.map((f) => path.basename(f.file, '.json')).sort());
    for (const [name, view] of byName) expect(viewName(view)).toBe(name);
  });

  test('the generated catalogue holds every schema file but the views', () => {
    const expected = schemaFiles.map((f) => f.file).filter((f) => !f.startsWith('views/'));
    expect([...schemaIds].sort()).toEqual(expected.sort());
  });

  test.each(byName)('%s: every field it names exists in its entity', (_name, view) => {
    const model = entityModel(view.entity);
    const virtual = Object.keys(view.fields ?? {}).filter((k) => view.fields?.[k].virtual);
    const named = [
      ...view.list.columns,
      ...(view.list.query ?? []),
      ...(view.list.sortable ?? []),
      ...viewForm(view).groups.flatMap((g) => g.fields).filter((n) => !virtual.includes(n)),
      ...Object.keys(view.fields ?? {}).filter((n) => !virtual.includes(n)),
      ...Object.keys(view.fixedFilters ?? {}),
      ...Object.values(view.fields ?? {}).flatMap((h) => Object.keys(h.visibleWhen ?? {})),
      ...(view.rowActions ?? []).flatMap((a) => [
        ...[a.visibleWhen ?? []].flat().map((c) => c.field),
        ...pathFields(a.call?.path ?? a.open?.path ?? a.pick?.call.path ?? ''),
        // Row values a body or a pick's filters take ("{hospitalId}"; "{picked.id}" is the other list's).
        ...[a.call?.body, a.pick?.filters, a.pick?.call.body].flatMap((b) => Object.values(b ?? {}).flatMap((v) => (typeof v === 'string' ? pathFields(v.replace(/^\{picked\.[^}]*\}$/, '')) : []))),
      ]),
      // A fill's targets are the field's siblings ("items.itemId" fills "items.organId").
      ...Object.entries(view.fields ?? {}).flatMap(([name, h]) => (h.fill?.into ?? []).map((n) => `${name.slice(0, name.lastIndexOf('.') + 1)}${n}`)),
      ...Object.values(view.fields ?? {}).flatMap((h) => (h.suffixField ? [h.suffixField] : [])),
      ...Object.values(view.fields ?? {}).flatMap((h) =>
        h.options && 'resource' in h.options
          ? Object.values(h.options.dependsOn ?? {})
              .filter((d) => d.startsWith('/'))
              .map((d) => d.slice(1))
          : [],
      ),
    ];
    expect(named.filter((n) => !model.byName.has(n))).toEqual([]);
    // A virtual field is the view's own: it shadows no entity field, and lists cannot show it.
    expect(virtual.filter((n) => model.byName.has(n))).toEqual([]);
    if (view.list.defaultSort) expect(view.list.sortable ?? []).toContain(view.list.defaultSort.field);
    expect(view.list.sortable?.filter((s) => !view.list.columns.includes(s)) ?? []).toEqual([]);
  });

  test.each(byName)('%s: resource, options, code tables and permission module exist', (_name, view) => {
    expect(resourceNames).toContain(view.resource);
    expect(entityNames).toContain(view.entity);
    expect(moduleKeys).toContain(view.permission);
    for (const h of Object.values(view.fields ?? {})) {
      if (h.options && 'resource' in h.options) expect(resourceNames).toContain(h.options.resource);
      if (h.options && 'code' in h.options) expect(codeTableNames).toContain(h.options.code);
    }
  });

  test.each(byName)('%s: row actions have unique keys and rights of the view\'s module', (_name, view) => {
    const actions = view.rowActions ?? [];
    expect(new Set(actions.map((a) => a.key)).size).toBe(actions.length);
    const modules = permissions.modules;
    const rights = modules[view.permission] ?? [];
    const granted = (p: string) => {
      const at = p.lastIndexOf(':');
      return at < 0 ? rights.includes(p) : (modules[p.slice(0, at)] ?? []).includes(p.slice(at + 1));
    };
    expect([...actions, ...(view.toolbarActions ?? [])].filter((a) => !granted(a.permission)).map((a) => a.key)).toEqual([]);
    expect(Object.values(view.actions ?? {}).filter((r) => !rights.includes(r))).toEqual([]);
  });

  test.each(byName)("%s: picks name a view and its fields; dialogs are registered, a dialog's then is a call of the view", (_name, view) => {
    const registered = dialogNames();
    for (const a of view.rowActions ?? []) {
      if (a.pick) {
        const picked = views[a.pick.view];
        expect(picked).toBeDefined();
        const model = entityModel(picked.entity);
        expect([...(a.pick.columns ?? []), ...(a.pick.query ?? []), ...Object.keys(a.pick.filters ?? {})].filter((n) => !model.byName.has(n))).toEqual([]);
      }
      if (a.dialog?.then) expect(view.rowActions?.find((b) => b.key === a.dialog?.then)?.call).toBeDefined();
    }
    for (const d of [...(view.rowActions ?? []), ...(view.toolbarActions ?? [])].flatMap((a) => (a.dialog ? [a.dialog] : []))) expect(registered).toContain(d.component);
  });

  test('the user view offers unlock with system.user:unlock while the user is locked', () => {
    expect(views.user.rowActions).toEqual([
      {
        key: 'unlock',
        permission: 'unlock',
        call: { method: 'POST', path: '/api/ucenter/v1/user/unlock/{id}' },
        confirm: true,
        // Only a user the caller governs wholly (the server's row flag) is the caller's to unlock.
        visibleWhen: [
          { field: 'lockedUntil', present: true },
          { field: 'governed', in: [true] },
        ],
      },
    ]);
  });

  /**
   * Pages that render a view's declared list (SchemaTable) under what a list view cannot
   * say; the list itself stays the view's.
   */
  const LIST_PAGES = ['resource/List', 'consult/Platform'];

  test.each(byName)('%s: its routes exist and serve it', (name, view) => {
    if (view.form?.steps) {
      // A wizard: its form route is the wizard; the list it goes back to is a screen of its own.
      expect(layout.find((r) => r.path === view.routes.form)).toMatchObject({ view: name, component: 'resource/Wizard' });
      expect(layout.find((r) => r.path === view.routes.list)).toBeDefined();
      return;
    }
    const list = layout.find((r) => r.path === view.routes.list);
    expect(list).toMatchObject({ view: name });
    expect(LIST_PAGES).toContain(list?.component);
    if (view.routes.form) {
      const form = layout.find((r) => r.path === view.routes.form);
      expect(form?.component).toBe('resource/Form');
      expect(form?.view && views[form.view].entity).toBe(view.entity);
    }
  });

  test('every route with a view names an existing one and a resource page', () => {
    for (const r of layout.filter((x) => x.view)) {
      expect(views[r.view as string]).toBeDefined();
      expect([...LIST_PAGES, 'resource/Form', 'resource/Wizard']).toContain(r.component);
      // Only a wizard view (form.steps) is served by the wizard, and a wizard by nothing else.
      expect(r.component === 'resource/Wizard').toBe(Boolean(views[r.view as string].form?.steps));
    }
  });
});

describe('locale texts', () => {
  const langs = ['zh-CN', 'en-US', 'ru-RU'];

  function fieldKeys(entity: string, fields: FieldInfo[]): string[] {
    return fields.flatMap((f) => [
      `entity.${entity}.field.${f.name}`,
      ...fieldKeys(entity, f.properties ?? []),
      ...fieldKeys(entity, f.items?.properties ?? []),
    ]);
  }

  const keys = [
    ...codeTableNames.flatMap((table) => codeValues(table).map((v) => `code.${table}.${v}`)),
    ...entityNames.flatMap((e) => [`entity.${e}.title`, ...fieldKeys(e, entityModel(e).fields)]),
    ...Object.values(views).flatMap((v) => viewForm(v).groups.map((g) => `entity.group.${g.key}`)),
    ...Object.values(views).flatMap((v) =>
      Object.entries(v.fields ?? {})
        .filter(([, h]) => h.virtual)
        .map(([name]) => `entity.${v.entity}.field.${name}`),
    ),
    ...Object.values(views).flatMap((v) =>
      (v.rowActions ?? []).flatMap((a) => [
        rowActionTextKey(v, a),
        // Only a call (or a pick's call) reports success; an action that opens a screen just goes there.
        ...(a.call || a.pick ? [rowActionTextKey(v, a, 'Done')] : []),
        ...(a.confirm ? [rowActionTextKey(v, a, 'Confirm')] : []),
      ]),
    ),
    ...Object.values(views).flatMap((v) => (v.toolbarActions ?? []).map((a) => rowActionTextKey(v, a))),
    ...['basic', 'membership', 'permission', 'dataScope', 'patientInfo', 'checkInfo', 'itemInfo', 'otherInfo'].map(
      (g) => `entity.group.${g}`,
    ),
    ...permissions.groups.map((g) => `permission.group.${g.key}`),
    ...Object.keys(permissions.modules).map((m) => `permission.module.${m}`),
    ...[...new Set(Object.values(permissions.modules).flat())].map((a) => `permission.action.${a}`),
  ];

  test('the list of expected keys is not empty', () => {
    expect(keys.length).toBeGreaterThan(200);
    expect(keys).toContain('code.doctorTitle.-1');
    expect(keys).toContain('entity.user.field.memberships.roleId');
    expect(keys).toContain('permission.module.system.user');
    expect(keys).toContain('entity.user.field.signature');
    expect(keys).toContain('entity.user.action.unlockConfirm');
  });

  test.each(langs)('%s has every code, entity, group, row action and permission text', (lang) => {
    expect(keys.filter((k) => resources[lang][k] === undefined)).toEqual([]);
  });
});
