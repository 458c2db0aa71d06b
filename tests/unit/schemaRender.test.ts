/**
 * The pure renderers of the schema engine: view + entity schema → Formily ISchema
 * (src/schema/toFormily.ts) and → ProTable columns (src/schema/toColumns.ts), plus the
 * list call body and the save payload. `t` echoes the key and its parameters, so the
 * snapshots show which text goes where. Scenarios:
 * - toFormily snapshot for every view in create, edit and detail mode
 * - readOnly fields absent on create, read-pretty on edit; the password required on
 *   create, optional on edit, absent from detail; a view's readPrettyOnly field
 * - conditional requirements from the entity's if/then: a hospital's parent (fixed kind)
 * - code tables become Select options with code.<table>.<value> labels; lengths,
 *   pattern and format become validation.* rules naming the field
 * - arrays of objects become an ArrayTable, dependsOn and uniqueBy are carried; an exam
 *   item's options depend on the form's hospital ("/hospitalId"); the exam form has the
 *   four page-configuration groups in order, a date picker for the birth date, and the
 *   total price (Money) kept up to date by a $sum reaction, on create too
 * - toColumns: a suffixField column shows the value in its unit's counted text (age
 *   45岁; in Russian 1 год, 2 года, 5 лет), else value and unit label; a money
 *   column shows CNY in the language's number format
 * - a view's virtual field (the user's signature picture) is its component with the
 *   view's props in every mode, and never reaches the save payload
 * - every field's FormItem carries data-testid field-<name>
 * - a wizard (consultationApply, form.steps): a FormStep pane per group in order with
 *   its fields and rules; its attachments field is the upload control of the file service
 * - toColumns snapshot for every view; only list.query fields are searchable; date-time
 *   query fields get a range picker with the quick ranges and transform to [from, to)
 * - toListQuery: paging, clicked sort or the view's default, query-bar values coerced,
 *   unknown keys dropped, fixed filters win
 * - a new record: entity defaults, one empty row for a non-empty list, fixed values
 * - toPayload: readOnly and unknown fields dropped (nested too: array widgets' row keys), blanks, an untouched
 *   structured object ({}) and an empty password dropped,
 *   fixed values set, id on edit; errorFieldPath climbs to a field the form has
 * - nested records: the QC rule's per-type fields switched by its type (shown and
 *   required under their types only), scoring items as ArrayCards with remove and
 *   move, grades as an ArrayTable starting at the schema's default, row ids kept
 * - every text key the renderers ask for exists in zh-CN and en-US
 */
import type { ISchema } from '@formily/json-schema';
import { resources, translate } from '../../locales';
import { errorFieldPath, initialValues, toPayload } from '@/schema/formData';
import { discriminatorOf, foreignFields } from '@/shared/schema/discriminator';
import { conditionallyRequired, entityModel, holds, requiredWhen } from '@/shared/schema/model';
import type { Dayjs } from 'dayjs';
import { RANGE_SUFFIX, hiddenColumns, initialQueryValues, toColumns, toListQuery, type Column } from '@/schema/toColumns';
import { toFormily } from '@/schema/toFormily';
import type { Translate, View } from '@/shared/schema/types';
import { formUrl, resolveView, views, type FormMode } from '@/shared/schema/views';

const asked = new Set<string>();
const t: Translate = (key, params) => {
  asked.add(key);
  return params ? `${key} ${JSON.stringify(params)}` : key;
};

const byName = Object.entries(views) as Array<[string, View]>;
const modes: FormMode[] = ['create', 'edit', 'detail'];

/** Field schemas by name, wherever the groups put them. */
function fieldsOf(schema: ISchema): Record<string, ISchema> {
  const out: Record<string, ISchema> = {};
  const walk = (s: ISchema) => {
    for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, ISchema>)) {
      if (v.type === 'void') walk(v);
      else out[k] = v;
    }
  };
  walk(schema);
  return out;
}

describe('toFormily', () => {
  describe.each(byName)('%s', (_name, view) => {
    test.each(modes)('%s', (mode) => {
      expect(toFormily(view, { t, mode })).toMatchSnapshot();
    });
  });

  test('readOnly fields: absent on create, read-pretty on edit', () => {
    const create = fieldsOf(toFormily(views.user, { t, mode: 'create' }));
    const edit = fieldsOf(toFormily(views.user, { t, mode: 'edit' }));
    for (const f of ['lockedUntil', 'lastLoginAt']) {
      expect(create[f]).toBeUndefined();
      expect(edit[f]['x-pattern']).toBe('readPretty');
      expect(edit[f]['x-validator']).toBeUndefined();
    }
  });

  test('the password: required on create, optional with a hint on edit, never shown in detail', () => {
    const create = fieldsOf(toFormily(views.user, { t, mode: 'create' })).password;
    const edit = fieldsOf(toFormily(views.user, { t, mode: 'edit' })).password;
    expect(create).toMatchObject({ 'x-component': 'Password', required: true });
    expect(create['x-validator']).toEqual(
      expect.arrayContaining([
        { required: true, message: 'validation.required {"field":"entity.user.field.password"}' },
        { maxLength: 16, message: 'validation.maxLength {"field":"entity.user.field.password","limit":16}' },
        { minLength: 8, message: 'validation.minLength {"field":"entity.user.field.password","limit":8}' },
      ]),
    );
    expect(edit.required).toBeUndefined();
    expect(edit['x-component-props']).toMatchObject({ placeholder: 'entity.placeholder.keepPassword' });
    expect(fieldsOf(toFormily(views.user, { t, mode: 'detail' })).password).toBeUndefined();
  });

  test("a hospital's parent is required (entity if/then with the view's fixed kind), a central hospital's is not", () => {
    expect(fieldsOf(toFormily(views.hospital, { t, mode: 'create' })).parentId.required).toBe(true);
    expect(fieldsOf(toFormily(views.centralHospital, { t, mode: 'create' })).parentId.required).toBeUndefined();
    expect(fieldsOf(toFormily(views.hospital, { t, mode: 'create' })).kind['x-pattern']).toBe('readPretty');
  });

  test('code tables become options with code.<table>.<value> labels; formats and patterns become rules', () => {
    const f = fieldsOf(toFormily(views.user, { t, mode: 'create' }));
    expect(f.title.enum).toEqual([4, 3, 2, 1, -1].map((v) => ({ value: v, label: `code.doctorTitle.${v}` })));
    expect(f.status['x-validator']).toEqual([{ required: true, message: 'validation.select {"field":"entity.user.field.status"}' }]);
    expect(f.mobile['x-validator']).toContainEqual({
      pattern: '^(\\+86)?1[3-9]\\d{9}$',
      message: 'validation.pattern {"field":"entity.user.field.mobile"}',
    });
    const org = fieldsOf(toFormily(views.regionOrg, { t, mode: 'create' }));
    // A format is the server's own test (config/formats.ts), not Formily's rule of that name.
    const ipRule = (org.uploadIp['x-validator'] as Array<{ validator?: (v: unknown) => boolean; message: string }>).find((r) => r.validator);
    expect(ipRule?.message).toBe('validation.format {"field":"entity.org.field.uploadIp"}');
    expect(['10.1.1.5', '', undefined].map((v) => ipRule?.validator?.(v))).toEqual([true, true, true]);
    expect(['256.1.1.1', '10.1.1'].map((v) => ipRule?.validator?.(v))).toEqual([false, false]);
    expect(org.uploaderFlag['x-component']).toBe('Switch');
  });

  test('memberships: an ArrayTable with dependent department options and unique hospitals', () => {
    const m = fieldsOf(toFormily(views.user, { t, mode: 'create' })).memberships;
    expect(m['x-component']).toBe('ArrayTable');
    expect(m['x-validator']).toContainEqual({
      uniqueBy: 'hospitalId',
      message: 'validation.uniqueItems {"field":"entity.user.field.memberships"}',
    });
    const cells = (m.items as ISchema).properties as Record<string, ISchema>;
    const dept = (cells.column_departmentId.properties as Record<string, ISchema>).departmentId;
    expect(dept['x-component-props']).toEqual({ source: { resource: 'department', dependsOn: { hospitalId: 'hospitalId' } } });
    expect(dept.required).toBeUndefined();
    expect((cells.column_hospitalId.properties as Record<string, ISchema>).hospitalId.required).toBe(true);
  });

  test('the exam form: four groups in order, items by the form hospital, a birth date picker, price read-only', () => {
    const schema = toFormily(views.exam, { t, mode: 'create' });
    expect(Object.keys(schema.properties ?? {})).toEqual(['group_patientInfo', 'group_checkInfo', 'group_itemInfo', 'group_otherInfo']);
    const create = fieldsOf(schema);
    const cells = (create.items.items as ISchema).properties as Record<string, ISchema>;
    const item = (cells.column_itemId.properties as Record<string, ISchema>).itemId;
    expect(item['x-component-props']).toEqual({ source: { resource: 'examItem', dependsOn: { hospitalId: '/hospitalId' } } });
    expect(create.birthDate['x-component']).toBe('DatePicker');
    // The server numbers the exam: not asked for on create. The total is shown while
    // items are chosen (read-only, kept up to date by $sum from the items' options).
    expect(create.examCode).toBeUndefined();
    const sum = { fulfill: { run: `{{$sum($self, ${JSON.stringify({ of: 'items', option: 'itemId', value: 'price', source: { resource: 'examItem', dependsOn: { hospitalId: '/hospitalId' } } })})}}` } };
    expect(create.price).toMatchObject({ 'x-pattern': 'readPretty', 'x-component': 'Money', 'x-reactions': sum });
    const edit = fieldsOf(toFormily(views.exam, { t, mode: 'edit' }));
    expect(edit.price).toMatchObject({ 'x-pattern': 'readPretty', 'x-component': 'Money', 'x-reactions': sum });
    const detail = fieldsOf(toFormily(views.exam, { t, mode: 'detail' }));
    expect(detail.price['x-component']).toBe('Money');
    expect(detail.price['x-reactions']).toBeUndefined();
  });

  test('a virtual field: the view\'s component and props in every mode, no rules, never saved', () => {
    for (const mode of modes) {
      const sig = fieldsOf(toFormily(views.user, { t, mode })).signature;
      expect(sig).toMatchObject({
        title: 'entity.user.field.signature',
        'x-component': 'ImageUpload',
        'x-decorator-props': { gridSpan: 2, 'data-testid': 'field-signature' },
      });
      expect(sig['x-component-props']).toEqual(views.user.fields?.signature.props);
      expect(sig['x-validator']).toBeUndefined();
      expect(sig['x-pattern']).toBeUndefined();
    }
    expect(initialValues(views.user)).not.toHaveProperty('signature');
    expect(toPayload(views.user, { name: '张三', signature: 'data:image/png;base64,AAAA', hasSignature: true }, 3)).toEqual({ id: 3, name: '张三' });
    // A name the entity lacks is an error unless the view declares it virtual.
    const { signature: _virtual, ...hints } = views.user.fields ?? {};
    expect(() => toFormily({ ...views.user, fields: hints }, { t, mode: 'edit' })).toThrow('entities/user.json has no field signature');
  });

  test('a wizard (form.steps): one FormStep pane per group in order, each with its rules; attachments are the upload control', () => {
    const view = views.consultationApply;
    const schema = toFormily(view, { t, mode: 'create' });
    const steps = (schema.properties as Record<string, ISchema>).steps;
    expect(steps).toMatchObject({ type: 'void', 'x-component': 'FormStep', 'x-component-props': { formStep: '{{formStep}}' } });
    const panes = Object.entries(steps.properties as Record<string, ISchema>);
    expect(panes.map(([k, p]) => [k, p['x-component'], (p['x-component-props'] as { title: string }).title])).toEqual(
      ['consultPatient', 'consultQuestion', 'consultMaterials', 'consultExperts'].map((g) => [`step_${g}`, 'FormStep.StepPane', `entity.group.${g}`]),
    );
    // Each pane holds its group's fields, with their rules (per-step validation is Formily's on the visible pane).
    expect(panes.map(([, p]) => Object.keys(fieldsOf(p)))).toEqual(view.form!.groups.map((g) => g.fields));
    const patient = fieldsOf(panes[0][1]);
    expect(patient.examId).toMatchObject({ required: true, 'x-component': 'RemoteSelect' });
    expect(patient.patientName['x-validator']).toEqual(expect.arrayContaining([expect.objectContaining({ maxLength: 32 })]));
    // The attachments: file ids of the file service, as FileUpload owned by the chosen exam.
    const files = fieldsOf(panes[2][1]).attachments;
    expect(files).toMatchObject({
      type: 'array',
      'x-component': 'FileUpload',
      'x-component-props': { multiple: true, maxCount: 20, purpose: 'examAttachment', ownerField: 'examId' },
    });
    expect(files['x-validator']).toEqual(expect.arrayContaining([expect.objectContaining({ maxItems: 20 })]));
    // An experts step needs at least one expert.
    expect(fieldsOf(panes[3][1]).expertIds).toMatchObject({ required: true });
    // A view without steps keeps its sections.
    expect(Object.keys(toFormily(views.user, { t, mode: 'create' }).properties as object)).toEqual(['group_basic', 'group_membership', 'group_dataScope']);
  });

  test('every field carries data-testid field-<name>', () => {
    const f = fieldsOf(toFormily(views.department, { t, mode: 'create' }));
    expect(Object.entries(f).map(([k, v]) => [k, (v['x-decorator-props'] as Record<string, unknown>)['data-testid']])).toEqual(
      ['hospitalId', 'code', 'name', 'shortcut'].map((k) => [k, `field-${k}`]),
    );
  });

  test('role: the permission tree, and custom conditions only while the scope is custom', () => {
    const f = fieldsOf(toFormily(views.role, { t, mode: 'edit' }));
    expect(f.permissions['x-component']).toBe('PermissionTree');
    // Shown while the scope is custom, and then required (role.json's if/then).
    expect(f.dataConditions['x-reactions']).toEqual([
      { dependencies: ['dataScope'], fulfill: { state: { visible: '{{$deps[0] === "custom"}}' } } },
      { dependencies: ['dataScope'], fulfill: { state: { required: '{{$deps[0] === "custom"}}' } } },
    ]);
    expect(f.dataConditions['x-validator']).toEqual([
      { required: false, message: 'validation.required {"field":"entity.role.field.dataConditions"}' },
    ]);
    expect(fieldsOf(toFormily(views.user, { t, mode: 'edit' })).dataScope['x-component-props']).toEqual({ withMode: true });
  });
});

describe('nested records and a discriminator (the QC rule)', () => {
  test('the type switches its fields: each shown only under its types, required under those that require it', () => {
    const d = discriminatorOf(entityModel('qcRule'))!;
    expect(d.field).toBe('type');
    expect(Object.fromEntries(d.fields)).toEqual({
      timeLimitHours: { when: ['exam'], requiredWhen: ['exam'] },
      modality: { when: ['image'], requiredWhen: [] },
      minImages: { when: ['image'], requiredWhen: ['image'] },
      diseases: { when: ['report'], requiredWhen: [] },
    });
    expect(foreignFields(d, 'exam').sort()).toEqual(['diseases', 'minImages', 'modality']);
    expect(foreignFields(d, undefined)).toHaveLength(4);
    // An entity without cases has none; its if/then stays a plain requirement.
    expect(discriminatorOf(entityModel('org'))).toBeUndefined();

    const f = fieldsOf(toFormily(views.qcRule, { t, mode: 'create' }));
    expect(f.minImages['x-reactions']).toEqual({
      dependencies: ['type'],
      fulfill: { state: { visible: '{{["image"].includes($deps[0])}}', required: '{{["image"].includes($deps[0])}}' } },
    });
    expect(f.modality['x-reactions']).toEqual({ dependencies: ['type'], fulfill: { state: { visible: '{{["image"].includes($deps[0])}}' } } });
    expect(f.minImages['x-validator']).toContainEqual({ required: false, message: 'validation.required {"field":"entity.qcRule.field.minImages"}' });
    // Fields of every type have no reaction.
    expect(f.name['x-reactions']).toBeUndefined();
  });

  test('items are cards (view array: cards) with remove and move; grades a table; a row id is kept, never shown', () => {
    const create = fieldsOf(toFormily(views.qcRule, { t, mode: 'create' }));
    expect(create.items['x-component']).toBe('ArrayCards');
    const card = (create.items.items as ISchema).properties as Record<string, ISchema>;
    expect(Object.keys(card)).toEqual(['index', 'layout', 'remove', 'moveUp', 'moveDown']);
    const cardFields = fieldsOf(card.layout);
    expect(Object.keys(cardFields)).toEqual(['name', 'score', 'deduction', 'description']);
    expect(cardFields.name.title).toBe('entity.qcRule.field.items.name');
    // The view spans the item's description over the card's two columns.
    expect(cardFields.description['x-decorator-props']).toMatchObject({ gridSpan: 2 });
    expect(Object.keys((create.items.properties ?? {}) as object)).toEqual(['add']);
    expect(create.grades['x-component']).toBe('ArrayTable');
    expect(Object.keys(((create.grades.items as ISchema).properties ?? {}) as object)).toEqual(['column_level', 'column_minScore', 'column_operations']);
    // The detail shows the rows without their operations.
    const detail = fieldsOf(toFormily(views.qcRule, { t, mode: 'detail' }));
    expect(Object.keys(((detail.items.items as ISchema).properties ?? {}) as object)).toEqual(['index', 'layout']);
    expect(detail.items.properties).toBeUndefined();
    // A new rule starts with the schema's grades.
    expect(initialValues(views.qcRule).grades).toHaveLength(3);
    // The save payload keeps a row's id (the store keeps the row by it) and drops what the schema lacks.
    expect(toPayload(views.qcRule, { name: 'r', type: 'image', items: [{ id: 7, name: 'a', score: 1, key: 'x' }] }).items).toEqual([{ id: 7, name: 'a', score: 1 }]);
  });
});

describe('conditions of an entity', () => {
  test('holds() decides only what it understands', () => {
    expect(holds({ required: ['id'] }, {})).toBe(false);
    expect(holds({ not: { required: ['id'] } }, {})).toBe(true);
    expect(holds({ properties: { kind: { const: 'subordinate' } }, required: ['kind'] }, { kind: 'subordinate' })).toBe(true);
    expect(holds({ pattern: 'x' }, {})).toBe(false);
  });

  test('a requirement on a field the user picks follows that field', () => {
    expect(requiredWhen(entityModel('role'), {})).toEqual([{ field: 'dataConditions', when: 'dataScope', equals: 'custom' }]);
    expect(requiredWhen(entityModel('org'), { kind: 'central' })).toEqual([]);
    expect(requiredWhen(entityModel('org'), {})).toEqual([{ field: 'parentId', when: 'kind', equals: 'subordinate' }]);
    expect(requiredWhen(entityModel('user'), {})).toEqual([]);
  });

  test('password on create only; parent for subordinate hospitals only', () => {
    expect(conditionallyRequired(entityModel('user'), {})).toEqual(['password']);
    expect(conditionallyRequired(entityModel('user'), { id: 1 })).toEqual([]);
    expect(conditionallyRequired(entityModel('org'), { kind: 'subordinate' })).toEqual(['parentId']);
    expect(conditionallyRequired(entityModel('org'), { kind: 'central' })).toEqual([]);
    expect(conditionallyRequired(entityModel('org'), {})).toEqual([]);
  });
});

describe('toColumns', () => {
  test('a range field preset by its view opens on that quick range (the audit trail: the last 7 days), and is required', () => {
    const view = views.auditLog;
    const values = initialQueryValues(view, new Date(2026, 10, 26, 15, 30));
    expect(Object.keys(values)).toEqual([`at${RANGE_SUFFIX}`]);
    expect((values[`at${RANGE_SUFFIX}`] as Dayjs[]).map((d) => d.format('YYYY-MM-DD'))).toEqual(['2026-11-20', '2026-11-26']);
    const range = toColumns(view, { t, loadOptions }).find((c) => c.key === `at${RANGE_SUFFIX}`);
    expect(range?.formItemProps).toMatchObject({ rules: [{ required: true }] });
    expect(initialQueryValues(views.exam)).toEqual({});
  });

  test('a drill-through address fills the query bar: a range as its days, codes and ids as numbers, a multiple field as a list, nothing else', () => {
    const search = new URLSearchParams('createdAt=2026-11-01,2026-11-07&hospitalId=3&modality=CT&patientSource=2&reportState=-1,1,8&hisPatientName=&kind=all&hidden=true');
    const values = initialQueryValues(views.exam, new Date(2026, 10, 26), search);
    expect((values[`createdAt${RANGE_SUFFIX}`] as Dayjs[]).map((d) => d.format('YYYY-MM-DD'))).toEqual(['2026-11-01', '2026-11-07']);
    expect(values).toEqual({ [`createdAt${RANGE_SUFFIX}`]: expect.any(Array), hospitalId: 3, modality: 'CT', patientSource: 2, reportState: [-1, 1, 8] });
    // A malformed range is left to the view's preset (the audit trail's last 7 days).
    const audit = initialQueryValues(views.auditLog, new Date(2026, 10, 26), new URLSearchParams('at=2026-11-01'));
    expect((audit[`at${RANGE_SUFFIX}`] as Dayjs[]).map((d) => d.format('YYYY-MM-DD'))).toEqual(['2026-11-20', '2026-11-26']);
    // The list call takes them as filters.
    expect(toListQuery(views.exam, { hospitalId: 3, modality: 'CT', patientSource: 2 }).filters).toMatchObject({ hospitalId: 3, modality: 'CT', patientSource: 2 });
  });
  const loadOptions = jest.fn(async () => [{ value: 1, label: 'x' }]);

  test.each(byName)('%s', (_name, view) => {
    expect(toColumns(view, { t, loadOptions })).toMatchSnapshot();
  });

  test('only list.query fields are searchable; query-only fields are hidden in the table', () => {
    const cols = toColumns(views.user, { t, loadOptions });
    const searchable = cols.filter((c) => c.search !== false).map((c) => c.key);
    expect(searchable).toEqual(['name', 'mobile', 'title', 'status', `lastLoginAt${RANGE_SUFFIX}`]);
    const hospital = toColumns(views.hospital, { t, loadOptions });
    expect(hospital.find((c) => c.key === 'businessMode')?.search).toBeUndefined();
    const dept = toColumns(views.department, { t, loadOptions });
    expect(dept.find((c) => c.key === 'hospitalId')).toMatchObject({ valueType: 'select' });
  });

  test('enums are select filters with code labels; booleans are yes/no', () => {
    const cols = toColumns(views.user, { t, loadOptions });
    const sex = cols.find((c) => c.key === 'sex') as Column;
    expect(sex.valueType).toBe('select');
    expect([...(sex.valueEnum as Map<number, { text: string }>).entries()]).toEqual([
      [1, { text: 'code.sex.1' }],
      [2, { text: 'code.sex.2' }],
      [3, { text: 'code.sex.3' }],
      [4, { text: 'code.sex.4' }],
    ]);
    const flag = toColumns(views.regionOrg, { t, loadOptions }).find((c) => c.key === 'uploaderFlag') as Column;
    expect([...(flag.valueEnum as Map<boolean, { text: string }>).keys()]).toEqual([true, false]);
  });

  test('a date-time query field: a day-range picker with the quick ranges, sent as [from, next day)', () => {
    const cols = toColumns(views.regionOrg, { t, loadOptions });
    expect(cols.find((c) => c.key === 'createdAt')).toMatchObject({
      valueType: 'dateTime',
      search: false,
      sorter: true,
      defaultSortOrder: 'descend',
    });
    const range = cols.find((c) => c.key === `createdAt${RANGE_SUFFIX}`) as Column;
    expect(range).toMatchObject({ valueType: 'dateRange', hideInTable: true });
    const presets = (range.fieldProps as { presets: Array<{ label: string; value: () => unknown[] }> }).presets;
    expect(presets.map((p) => p.label)).toEqual([
      'entity.range.today',
      'entity.range.yesterday',
      'entity.range.last3Days',
      'entity.range.last7Days',
    ]);
    expect(presets[0].value()).toHaveLength(2);
    const transform = (range.search as { transform: (v: unknown) => Record<string, string[]> }).transform;
    expect(transform(['2026-01-10', '2026-01-12'])).toEqual({
      createdAt: [new Date(2026, 0, 10).toISOString(), new Date(2026, 0, 13).toISOString()],
    });
    expect(transform(undefined)).toEqual({});
  });

  test('options of a resource load through the injected loader', async () => {
    const col = toColumns(views.hospital, { t, loadOptions }).find((c) => c.key === 'parentId') as Column;
    await (col.request as () => Promise<unknown>)();
    expect(loadOptions).toHaveBeenCalledWith({ resource: 'org', params: { kind: 'central' } });
  });

  test('a suffixField column shows the value with the unit label; a money column shows CNY', () => {
    const cols = toColumns(views.exam, { t, loadOptions });
    const age = cols.find((c) => c.key === 'age') as Column & { renderText: (v: unknown, row: object) => unknown };
    // The unit's counted text, with the value as its count (the language picks the plural form).
    expect(age.renderText(45, { age: 45, ageUnit: 4 })).toBe('entity.value.count.ageUnit.4 {"count":45}');
    expect(age.renderText(3, { age: 3 })).toBe('entity.value.withUnit {"value":3,"unit":""}');
    const ru = (key: string, params?: Record<string, unknown>) => translate('ru-RU', key, params);
    const ruAge = toColumns(views.exam, { t: ru, loadOptions }).find((c) => c.key === 'age') as Column & { renderText: (v: unknown, row: object) => unknown };
    expect([1, 2, 5, 78].map((n) => ruAge.renderText(n, { ageUnit: 4 }))).toEqual(['1 год', '2 года', '5 лет', '78 лет']);
    expect(age.renderText(null, {})).toBeNull();
    const price = cols.find((c) => c.key === 'price') as Column & { render: (dom: unknown, row: object) => unknown };
    expect(price.render(null, { price: 1234.5 })).toBe('¥1,234.50');
    expect(price.render(null, { price: '86' })).toBe('¥86.00');
    expect(price.render(null, {})).toBe('-');
    // In the language's number format, always with the yuan sign.
    const es = toColumns(views.exam, { t, loadOptions, locale: 'es-ES' }).find((c) => c.key === 'price') as Column & { render: (dom: unknown, row: object) => unknown };
    expect(String(es.render(null, { price: 1234.5 })).replace(/\s/g, ' ')).toBe('1234,50 ¥');
  });

  test('hideInList columns start hidden', () => {
    expect(hiddenColumns(views.user)).toEqual({ workNo: { show: false } });
  });
});

describe('toListQuery', () => {
  test('paging, the view default sort, coerced filters of query fields only, fixed filters win', () => {
    expect(
      toListQuery(
        views.hospital,
        { current: 2, pageSize: 50, name: ' 一院 ', parentId: '3', businessMode: '2', kind: 'region', _timestamp: 1 },
        {},
      ),
    ).toEqual({
      page: 2,
      pageSize: 50,
      sort: { field: 'createdAt', order: 'descend' },
      filters: { name: '一院', parentId: 3, businessMode: 2, kind: 'subordinate' },
    });
  });

  test('a clicked sort wins; empty values are not filters; the page size is capped', () => {
    expect(toListQuery(views.user, { current: 1, pageSize: 500, name: '', status: undefined }, { name: 'ascend' })).toEqual({
      page: 1,
      pageSize: 100,
      sort: { field: 'name', order: 'ascend' },
      filters: {},
    });
  });

  test('a date range filter passes through as [from, to)', () => {
    const range = ['2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z'];
    expect(toListQuery(views.user, { lastLoginAt: range }).filters).toEqual({ lastLoginAt: range });
  });
});

describe('forms and the API', () => {
  test('a new record starts with the fixed values', () => {
    expect(initialValues(views.centralHospital)).toEqual({ kind: 'central', checkInOnRegistration: true });
    expect(initialValues(views.user)).toEqual({ status: 1, memberships: [{}] });
    expect(initialValues(views.role)).toEqual({});
  });

  test('the save payload: writable known fields only, blanks dropped, id on edit', () => {
    const values = {
      id: 9,
      mobile: ' 13800000001 ',
      name: '张三',
      username: '',
      password: '',
      status: 1,
      memberships: [{ hospitalId: 1, roleId: 2, departmentId: undefined, __DO_NOT_USE_THIS_PROPERTY_index__: 0 }],
      hospitalNames: '一院',
      lastLoginAt: '2026-01-01T00:00:00Z',
      dataScope: { mode: 'all' },
      permissions: { 'system.user': ['view'] },
      surprise: true,
    };
    expect(toPayload(views.user, values, '9')).toEqual({
      id: 9,
      mobile: '13800000001',
      name: '张三',
      status: 1,
      memberships: [{ hospitalId: 1, roleId: 2 }],
      dataScope: { mode: 'all' },
    });
    // Formily starts object fields as {}: an untouched data scope is no value; an empty permission map is one.
    expect(toPayload(views.user, { name: '张三', dataScope: {} })).toEqual({ name: '张三' });
    expect(toPayload(views.user, { name: '张三', dataScope: { logic: '' } })).toEqual({ name: '张三' });
    expect(toPayload(views.role, { name: 'R', dataScope: 'own', permissions: {} })).toEqual({ name: 'R', dataScope: 'own', permissions: {} });
    expect(toPayload(views.role, { name: 'R', dataScope: 'all', permissions: { 'system.user': ['view', 'add'] }, userCount: 3 })).toEqual({
      name: 'R',
      dataScope: 'all',
      permissions: { 'system.user': ['view', 'add'] },
    });
    expect(toPayload(views.hospital, { code: 'H1', name: '一院', kind: 'region', parentId: null })).toEqual({
      code: 'H1',
      name: '一院',
      kind: 'subordinate',
      parentId: null,
    });
  });

  test('a server field error lands on the nearest field the form has', () => {
    const has = new Set(['dataScope', 'memberships', 'memberships.0.hospitalId', 'mobile']);
    const exists = (p: string) => has.has(p);
    expect(errorFieldPath('mobile', exists)).toBe('mobile');
    expect(errorFieldPath('memberships.0.hospitalId', exists)).toBe('memberships.0.hospitalId');
    expect(errorFieldPath('memberships/1/roleId', exists)).toBe('memberships');
    expect(errorFieldPath('dataScope.conditions.0.value', exists)).toBe('dataScope');
    expect(errorFieldPath('nothing', exists)).toBeUndefined();
  });

  test('form URLs: ?view= only when the route serves another view by default', () => {
    expect(formUrl(views.user, 'create')).toBe('/addUser');
    expect(formUrl(views.user, 'edit', 5)).toBe('/addUser?id=5');
    expect(formUrl(views.centralHospital, 'detail', 7)).toBe('/regionOrgDetail?view=centralHospital&id=7&mode=detail');
    expect(formUrl(views.department, 'create')).toBeUndefined();
    expect(resolveView('/regionOrgDetail', 'centralHospital')).toBe(views.centralHospital);
    expect(resolveView('/regionOrgDetail', null)).toBe(views.regionOrg);
    expect(resolveView('/addUser', 'centralHospital')).toBe(views.user);
    expect(resolveView('/dashboard', null)).toBeUndefined();
  });
});

describe('texts', () => {
  test.each(['zh-CN', 'en-US'])('every key the renderers asked for exists in %s', (lang) => {
    for (const view of Object.values(views)) for (const mode of modes) toFormily(view, { t, mode });
    for (const view of Object.values(views)) toColumns(view, { t });
    expect(asked.size).toBeGreaterThan(50);
    // A counted text (i18next plural forms) exists as its forms.
    expect([...asked].filter((k) => resources[lang][k] === undefined && resources[lang][`${k}_other`] === undefined)).toEqual([]);
  });
});
