/**
 * Stored screen settings merged with a view (src/schema/layout.ts), scenarios:
 * - mergeOrder: stored order first, keys the store does not know after their view neighbour
 * - columns: no setting gives the view's defaults (hideInList hidden, the action column
 *   pinned right); a setting hides, orders and pins; unknown keys are ignored and a new
 *   column shows; the map ProTable hands back becomes the stored list, in order
 * - query bar: reordered and filtered; new query fields show; unknown keys ignored
 * - form layout: groups and fields in the stored order, fields moved between groups,
 *   unknown fields and groups ignored, forgotten fields appended to their view group,
 *   empty groups left out of the form but offered by the dialog
 * - the dialog's moves (up/down, to another group) and the stored shape
 * - the service calls (paths, bodies) through the generated calls, given an injected request function
 */
import {
  applyColumnSetting,
  applyFormLayout,
  applyQuerySetting,
  columnSettingOf,
  mergeFormLayout,
  mergeOrder,
  moveFieldToGroup,
  moveFieldWithin,
  moveItem,
  querySettingRows,
  toFormLayout,
} from '../../src/schema/layout';
import type { View } from '../../src/shared/schema/types';
import { screenSettingsApi } from '../../src/services/screenSettings';
import type { RequestOptions } from '../../src/services/request';

const view: View = {
  $id: 'views/sample.json',
  entity: 'user',
  resource: 'user',
  permission: 'system.user',
  list: { columns: ['name', 'mobile', 'workNo', 'status'], query: ['name', 'mobile', 'status', 'lastLoginAt'] },
  form: {
    groups: [
      { key: 'basic', fields: ['mobile', 'name', 'password'] },
      { key: 'membership', fields: ['memberships'] },
      { key: 'dataScope', fields: ['dataScope'] },
    ],
  },
  fields: { workNo: { hideInList: true } },
  routes: { list: '/user' },
};

const columns = [
  { key: 'name' },
  { key: 'mobile' },
  { key: 'workNo' },
  { key: 'status' },
  { key: 'lastLoginAtRange', hideInTable: true },
  { key: '__actions', fixed: 'right' },
];
const hidden = { workNo: { show: false } };

describe('mergeOrder', () => {
  test('stored keys first, in their order; unknown and repeated keys dropped', () => {
    expect(mergeOrder(['a', 'b', 'c'], ['c', 'x', 'a', 'c', 'b'])).toEqual(['c', 'a', 'b']);
  });
  test('a key the store does not know follows its nearest earlier view neighbour', () => {
    expect(mergeOrder(['a', 'b', 'c', 'd'], ['c', 'a'])).toEqual(['c', 'd', 'a', 'b']);
    expect(mergeOrder(['new', 'a', 'b'], ['b', 'a'])).toEqual(['new', 'b', 'a']);
    expect(mergeOrder(['a', 'b'], [])).toEqual(['a', 'b']);
  });
});

describe('list columns', () => {
  test('without a setting: the view’s defaults, every table column ordered', () => {
    expect(applyColumnSetting(columns, undefined, hidden)).toEqual({
      name: { show: true, order: 1 },
      mobile: { show: true, order: 2 },
      workNo: { show: false, order: 3 },
      status: { show: true, order: 4 },
      __actions: { show: true, fixed: 'right', order: 5 },
    });
  });

  test('a setting hides, orders and pins; unknown keys are ignored; a new column shows', () => {
    const map = applyColumnSetting(
      columns,
      [
        { key: 'status', show: true, order: 1, fixed: 'left' },
        { key: 'gone', show: false, order: 2 },
        { key: 'name', show: false, order: 3 },
        { key: 'workNo', show: true, order: 4 },
        { key: '__actions', show: true, order: 5, fixed: 'right' },
      ],
      hidden,
    );
    expect(map).toEqual({
      status: { show: true, fixed: 'left', order: 1 },
      name: { show: false, order: 2 },
      mobile: { show: true, order: 3 },
      workNo: { show: true, order: 4 },
      __actions: { show: true, fixed: 'right', order: 5 },
    });
    expect(Object.keys(map)).not.toContain('lastLoginAtRange');
  });

  test('ProTable’s map becomes the stored list, in the order shown', () => {
    const map = {
      name: { show: true, order: 3 },
      mobile: { show: false, order: 1 },
      workNo: { show: true, order: 2 },
      status: { show: true, order: 4 },
    };
    expect(columnSettingOf(map, columns)).toEqual([
      { key: 'mobile', show: false, order: 1 },
      { key: 'workNo', show: true, order: 2 },
      { key: 'name', show: true, order: 3 },
      { key: 'status', show: true, order: 4 },
      // Not in the map (the popover's reset): the column's own pin, at its view place.
      { key: '__actions', show: true, order: 5, fixed: 'right' },
    ]);
  });

  test('a round trip keeps the choice', () => {
    const stored = columnSettingOf({ ...applyColumnSetting(columns, undefined, hidden), name: { show: false, order: 1 } }, columns);
    expect(applyColumnSetting(columns, stored, hidden).name).toEqual({ show: false, order: 1 });
  });
});

describe('query bar', () => {
  test('reordered and filtered by the setting', () => {
    const q = applyQuerySetting(view, [
      { key: 'status', show: true },
      { key: 'name', show: false },
      { key: 'mobile', show: true },
    ]);
    // lastLoginAt is new to the setting: shown, right after its view neighbour status.
    expect(q.list.query).toEqual(['status', 'lastLoginAt', 'mobile']);
    expect(q.list.columns).toBe(view.list.columns);
    expect(view.list.query).toEqual(['name', 'mobile', 'status', 'lastLoginAt']);
  });

  test('no setting, or only unknown keys: the view’s query bar', () => {
    expect(applyQuerySetting(view, undefined)).toBe(view);
    expect(applyQuerySetting(view, [{ key: 'gone', show: false }]).list.query).toEqual(view.list.query);
  });

  test('the dialog lists every query field with its flag', () => {
    expect(querySettingRows(view, [{ key: 'mobile', show: false }])).toEqual([
      { key: 'name', show: true },
      { key: 'mobile', show: false },
      { key: 'status', show: true },
      { key: 'lastLoginAt', show: true },
    ]);
  });
});

describe('form layout', () => {
  test('without a layout the view is unchanged', () => {
    expect(applyFormLayout(view, null)).toBe(view);
  });

  test('groups and fields in the stored order; a field moved to another group', () => {
    const laidOut = applyFormLayout(view, {
      groups: [
        { key: 'dataScope', fields: ['dataScope', 'name'] },
        { key: 'basic', fields: ['password', 'mobile'] },
        { key: 'membership', fields: ['memberships'] },
      ],
    });
    expect(laidOut.form.groups).toEqual([
      { key: 'dataScope', fields: ['dataScope', 'name'] },
      { key: 'basic', fields: ['password', 'mobile'] },
      { key: 'membership', fields: ['memberships'] },
    ]);
    expect(laidOut.list).toBe(view.list);
  });

  test('unknown fields and groups are ignored; forgotten fields and groups come back', () => {
    const laidOut = applyFormLayout(view, {
      groups: [
        { key: 'basic', fields: ['name', 'removedField', 'name'] },
        { key: 'oldGroup', fields: ['mobile'] },
      ],
    });
    expect(laidOut.form.groups).toEqual([
      // mobile sat in an unknown group: back to its own, after what the layout placed.
      { key: 'basic', fields: ['name', 'mobile', 'password'] },
      { key: 'membership', fields: ['memberships'] },
      { key: 'dataScope', fields: ['dataScope'] },
    ]);
  });

  test('an emptied group leaves the form but stays in the dialog', () => {
    const layout = {
      groups: [
        { key: 'basic', fields: ['mobile', 'name', 'password', 'memberships'] },
        { key: 'membership', fields: [] },
      ],
    };
    expect(applyFormLayout(view, layout).form.groups.map((g) => g.key)).toEqual(['basic', 'dataScope']);
    expect(mergeFormLayout(view, layout)).toEqual([
      { key: 'basic', fields: ['mobile', 'name', 'password', 'memberships'] },
      { key: 'membership', fields: [] },
      { key: 'dataScope', fields: ['dataScope'] },
    ]);
  });

  test('the dialog’s moves and the stored shape', () => {
    const groups = mergeFormLayout(view, null);
    const moved = moveFieldToGroup(groups, 'name', 'dataScope');
    expect(moved).toEqual([
      { key: 'basic', fields: ['mobile', 'password'] },
      { key: 'membership', fields: ['memberships'] },
      { key: 'dataScope', fields: ['dataScope', 'name'] },
    ]);
    expect(moveFieldToGroup(groups, 'name', 'nowhere')).toEqual(groups);
    expect(moveFieldWithin(moved, 'name', -1)[2].fields).toEqual(['name', 'dataScope']);
    expect(moveFieldWithin(moved, 'dataScope', -1)[2].fields).toEqual(['dataScope', 'name']);
    expect(groups[0].fields).toEqual(['mobile', 'name', 'password']);
    expect(toFormLayout(moved)).toEqual({ groups: moved });
    expect(moveItem(['a', 'b', 'c'], 2, 1)).toEqual(['a', 'b', 'c']);
    expect(moveItem(['a', 'b', 'c'], 1, 1)).toEqual(['a', 'c', 'b']);
  });
});

describe('screen settings service', () => {
  test('paths and bodies through the one request function', async () => {
    const calls: Array<[string, RequestOptions | undefined]> = [];
    const req = (async (path: string, options?: RequestOptions) => {
      calls.push([path, options]);
      return path.endsWith('/org/config/user') ? undefined : options?.body ? (options.body as { value: unknown }).value : null;
    }) as Parameters<typeof screenSettingsApi>[0];
    const api = screenSettingsApi(req);
    expect(await api.userSetting('user')).toBeNull();
    expect(await api.formLayout('user')).toBeNull();
    const value = { query: [{ key: 'name', show: true }] };
    expect(await api.saveUserSetting('user', value)).toEqual(value);
    const layout = toFormLayout(mergeFormLayout(view, null));
    await api.saveFormLayout('user', layout);
    expect(calls).toEqual([
      ['/api/ucenter/v1/user/config/user', { quiet: true, method: 'GET' }],
      ['/api/ucenter/v1/org/config/user', { quiet: true, method: 'GET' }],
      ['/api/ucenter/v1/user/config', { method: 'POST', body: { module: 'user', value } }],
      ['/api/ucenter/v1/org/config', { method: 'POST', body: { module: 'user', value: layout } }],
    ]);
  });
});
