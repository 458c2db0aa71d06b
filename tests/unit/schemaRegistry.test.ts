/**
 * The component registry of schema forms (src/schema/registry.ts). Scenarios:
 * - a name registered twice throws, naming it; an undefined component throws
 * - the registry is frozen and holds the custom controls
 * - every component the generated schemas of every view and mode use resolves
 *   (including members such as ArrayTable.Column and Input.TextArea)
 * - the uniqueBy rule: rows sharing a value are reported
 */
import type { ISchema } from '@formily/json-schema';

// @formily/antd-v5's FormButtonGroup pulls in react-sticky-box, shipped as ES modules
// only; no schema form uses it, and jest (CommonJS) cannot load it.
jest.mock('react-sticky-box', () => ({ __esModule: true, default: () => null }));

import { components, defineRegistry, duplicateRows, hasComponent } from '@/schema/registry';
import { toFormily } from '@/schema/toFormily';
import { views } from '@/shared/schema/views';

const A = () => null;
const B = () => null;

describe('registry', () => {
  test('registering a name twice throws', () => {
    expect(() => defineRegistry({ Input: A }, { Select: B }, { Input: B })).toThrow('schema component "Input" is registered twice');
    expect(() => defineRegistry({ Ghost: undefined as unknown as typeof A })).toThrow('"Ghost" is undefined');
    expect(Object.keys(defineRegistry({ A }, { B }))).toEqual(['A', 'B']);
  });

  test('the app registry is frozen and has the custom controls', () => {
    expect(Object.isFrozen(components)).toBe(true);
    for (const name of ['RemoteSelect', 'PermissionTree', 'ConditionEditor', 'Section', 'Switch', 'FormItem', 'FormGrid', 'ArrayTable']) {
      expect(hasComponent(name)).toBe(true);
    }
    expect(hasComponent('ArrayTable.Column')).toBe(true);
    expect(hasComponent('Input.TextArea')).toBe(true);
    expect(hasComponent('Nope')).toBe(false);
    expect(hasComponent('Input.Nope')).toBe(false);
  });

  test('every component the views need is registered', () => {
    const used = new Set<string>();
    const walk = (s: ISchema) => {
      for (const key of ['x-component', 'x-decorator'] as const) if (typeof s[key] === 'string') used.add(s[key] as string);
      for (const child of Object.values((s.properties ?? {}) as Record<string, ISchema>)) walk(child);
      if (s.items && !Array.isArray(s.items)) walk(s.items as ISchema);
    };
    for (const view of Object.values(views))
      for (const mode of ['create', 'edit', 'detail'] as const) walk(toFormily(view, { t: (k) => k, mode }));
    expect(used.size).toBeGreaterThan(8);
    expect([...used].filter((n) => !hasComponent(n))).toEqual([]);
  });

  test('uniqueBy finds repeated rows', () => {
    expect(duplicateRows([{ h: 1 }, { h: 2 }, { h: 1 }, {}, { h: '' }], 'h')).toEqual([2]);
    expect(duplicateRows(undefined, 'h')).toEqual([]);
  });
});
