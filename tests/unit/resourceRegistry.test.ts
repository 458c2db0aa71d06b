/**
 * config/resources.json, the registry of the resource API, with the admin entities
 * their views declare merged in (config/declared.ts): it follows its schema,
 * every table resource plans (its entity has the fields the declaration names, only
 * scalar fields), every code it names is in the error catalogue, every module in the
 * permission tree, and every view's resource is registered.
 */
import Ajv from 'ajv';
import { RESOURCE_REGISTRY as registry } from '../../config/declared';
import registrySchema from '../../config/resources.schema.json';
import { errorCatalogue } from '../../config/errors';
import { MODULES } from '../../server/identity/access';
import { planTable, RESOURCES } from '../../server/lib/tableResource';
import { views } from '@/shared/schema/views';

const tables = Object.entries(RESOURCES).filter(([, e]) => e.table);

describe('resource registry', () => {
  test('follows config/resources.schema.json', () => {
    const ajv = new Ajv({ strict: true, allErrors: true });
    const validate = ajv.compile(registrySchema);
    expect(validate(registry) ? [] : validate.errors).toEqual([]);
  });

  test('a declaration naming a field its entity lacks is refused at startup', () => {
    const [name, entry] = tables[0];
    expect(() => planTable(name, { ...entry, table: { ...entry.table!, label: 'noSuchField' } })).toThrow(/noSuchField/);
  });

  test.each(tables)('%s: plans, with catalogue codes and a known permission module', (name, entry) => {
    const plan = planTable(name, entry);
    expect(plan.writable.map((f) => f.name)).not.toContain('id');
    const codes = [entry.table!.notFound, ...Object.values(entry.table!.unique ?? {}), ...(entry.table!.inUse ?? []).map((u) => u.code)];
    for (const code of codes) expect(errorCatalogue.codes[code]).toBeDefined();
    // The four rights, by the names the module gives them (scheduleRule: configure).
    const rights = { view: 'view', add: 'add', edit: 'edit', delete: 'delete', ...entry.actions };
    expect(MODULES[entry.module!]).toEqual(expect.arrayContaining(Object.values(rights)));
  });

  test('every view names a registered resource', () => {
    for (const view of Object.values(views)) expect(RESOURCES[view.resource]).toBeDefined();
  });
});
