/**
 * One rule, one message: the same invalid payload is refused with the same field
 * message by the generated form (Formily, with the validators src/schema/toFormily.ts
 * derives from the entity schema) and, sent directly, by the server (ajv on the same
 * schema). For each single-fault payload on the device and exam-item forms, the form's
 * only error is on the field the server names, with the server's `detail` text, in
 * zh-CN and in en-US.
 *
 * The QC rule's form is built as SchemaField builds it (each field's state and
 * reactions from the generated schema, rows of its arrays included), so its fields
 * switched by the rule's type and its rows' fields are checked too: a row's fault is
 * named on both sides by the row's path, a type's required field only under that type,
 * and what the form sends after the user switched types is what the server accepts.
 * And both ways: for each format, pattern and limit, a value the server accepts the
 * form accepts, and a value the server refuses the form refuses (the HIS interface's
 * URL with an IP host and a port, an IPv6 literal, e-mails, mobiles, bounds; a
 * device's IP; through the server's own save). ID card numbers and mobiles of the
 * registration form are checked against the server's ajv (its options, ajv-formats
 * and the schemas' own formats) on the same schema.
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { createForm, type Form } from '@formily/core';
import { Schema, type ISchema } from '@formily/json-schema';
import { customFormats } from '../../config/formats';
import { AJV_OPTIONS } from '../../server/lib/ajv';
import { loadSchemas } from '../../server/lib/schemas';
import { translate } from '../../locales';
import { toFormily } from '@/schema/toFormily';
import { views } from '@/shared/schema/views';
import type { View } from '@/shared/schema/types';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';

/** The form's fields with their generated rules, created the way SchemaField would create them. */
function formFor(view: View, lang: string): Form {
  const t = (key: string, params?: Record<string, unknown>) => translate(lang, key, params);
  const form = createForm();
  const walk = (s: ISchema) => {
    for (const [name, child] of Object.entries((s.properties ?? {}) as Record<string, ISchema>)) {
      if (child.type === 'void') walk(child);
      else form.createField({ name, required: child.required === true, validator: child['x-validator'] as never });
    }
  };
  walk(toFormily(view, { t, mode: 'create' }));
  return form;
}

/**
 * A form with every field of the generated schema and its reactions (visible, required
 * by type), the rows of its arrays as long as `values` has them: SchemaField's work
 * without React.
 */
function reactiveForm(view: View, lang: string, values: Record<string, unknown>): Form {
  const t = (key: string, params?: Record<string, unknown>) => translate(lang, key, params);
  const form = createForm({ values: JSON.parse(JSON.stringify(values)) });
  const walk = (s: ISchema, basePath?: string) => {
    for (const [name, child] of Object.entries((s.properties ?? {}) as Record<string, ISchema>)) {
      if (child.type === 'void') {
        walk(child, basePath);
        continue;
      }
      const props = { ...new Schema(child).toFieldProps(), name, basePath };
      if (child.type !== 'array' || !child.items) {
        form.createField(props);
        continue;
      }
      form.createArrayField(props);
      const rows = (values[name] as unknown[] | undefined) ?? [];
      rows.forEach((_, i) => walk(child.items as ISchema, `${name}.${i}`));
    }
  };
  walk(toFormily(view, { t, mode: 'create' }));
  return form;
}

async function errorsOf(form: Form) {
  await form.validate().catch(() => undefined);
  return form.errors.map((e) => ({ field: String(e.path), messages: e.messages }));
}

async function formErrors(view: View, lang: string, values: Record<string, unknown>) {
  const form = formFor(view, lang);
  form.setValues(values);
  await form.validate().catch(() => undefined);
  return form.errors.map((e) => ({ field: String(e.path), messages: e.messages }));
}

describe('form and server refuse alike', () => {
  let p: TestPlatform;
  let admin: string;
  let hospitalId: number;

  beforeAll(async () => {
    p = await startTestPlatform('pglite');
    admin = await login(p.app, '13800000001');
    hospitalId = (await p.db.query<{ id: number }>("SELECT id FROM org WHERE code = 'HOSP_A'")).rows[0].id;
  });
  afterAll(() => p.close());

  const device = () => ({ hospitalId, name: 'PARITY-1', modality: 'CT', aeTitle: 'PARITY1', ip: '10.9.9.9', port: 104 });
  const item = () => ({ hospitalId, code: 'PAR-1', name: '一致性', modality: 'DR', price: 10 });
  // Payloads are made when a test runs: the hospital's id is known only after beforeAll.
  const cases: Array<[string, string, () => Record<string, unknown>, string]> = [
    ['device', 'an IP out of range', () => ({ ...device(), ip: '256.1.1.1' }), 'ip'],
    ['device', 'a port above 65535', () => ({ ...device(), port: 65536 }), 'port'],
    ['device', 'a name of 33 characters', () => ({ ...device(), name: 'N'.repeat(33) }), 'name'],
    ['device', 'no AE title', () => ({ ...device(), aeTitle: undefined }), 'aeTitle'],
    ['device', 'an AE title with a backslash', () => ({ ...device(), aeTitle: 'AE\\1' }), 'aeTitle'],
    ['device', 'no modality (a choice)', () => ({ ...device(), modality: undefined }), 'modality'],
    ['examItem', 'a price below zero', () => ({ ...item(), price: -1 }), 'price'],
    ['examItem', 'a price finer than the fen', () => ({ ...item(), price: 1.005 }), 'price'],
    ['examItem', 'a code with a space', () => ({ ...item(), code: 'PAR 1' }), 'code'],
  ];

  const rule = () => ({
    name: '一致性规则',
    type: 'image',
    minImages: 2,
    items: [{ name: '伪影', score: 60, deduction: 10 }, { name: '体位', score: 40 }],
    grades: [{ level: 'A', minScore: 80 }, { level: 'B', minScore: 0 }],
  });
  const ruleCases: Array<[string, () => Record<string, unknown>, string]> = [
    ['an image rule without its minimum of images', () => ({ ...rule(), minImages: undefined }), 'minImages'],
    ['an exam rule without its time limit', () => ({ ...rule(), type: 'exam', minImages: undefined }), 'timeLimitHours'],
    ['a second item above 100 points', () => ({ ...rule(), items: [rule().items[0], { name: '体位', score: 101 }] }), 'items.1.score'],
    ['an item without a name', () => ({ ...rule(), items: [{ score: 10 }] }), 'items.0.name'],
    ['an item name of 33 characters', () => ({ ...rule(), items: [{ name: 'N'.repeat(33), score: 10 }] }), 'items.0.name'],
    ['one grade only', () => ({ ...rule(), grades: [{ level: 'A', minScore: 0 }] }), 'grades'],
    ['a grade level in Chinese', () => ({ ...rule(), grades: [{ level: '甲', minScore: 80 }, { level: 'B', minScore: 0 }] }), 'grades.0.level'],
  ];

  describe.each(['zh-CN', 'en-US'])('in %s', (lang) => {
    test.each(cases)('%s: %s', async (viewName, _what, make, field) => {
      const payload = make();
      const view = views[viewName];
      const base = viewName === 'device' ? '/api/ris/v1/device' : '/api/ris/v1/examItem';
      const reply = await p.app.inject({ method: 'POST', url: `${base}/save`, headers: authed(admin, { 'accept-language': lang }), payload });
      const body = reply.json();
      expect(reply.statusCode).toBe(400);
      expect(body).toMatchObject({ status: 'UAA421', field });
      const errors = await formErrors(view, lang, JSON.parse(JSON.stringify(payload)));
      expect(errors).toEqual([{ field, messages: [body.detail] }]);
    });

    test.each(ruleCases)('qcRule: %s', async (_what, make, field) => {
      const payload = make();
      const reply = await p.app.inject({ method: 'POST', url: '/api/qc/v1/rule/save', headers: authed(admin, { 'accept-language': lang }), payload });
      const body = reply.json();
      expect(reply.statusCode).toBe(400);
      expect(body).toMatchObject({ status: 'UAA421', field });
      expect(await errorsOf(reactiveForm(views.qcRule, lang, JSON.parse(JSON.stringify(payload))))).toEqual([{ field, messages: [body.detail] }]);
    });

    test('qcRule: switching the type hides the old fields and asks for the new; what the form then sends, the server accepts', async () => {
      const form = reactiveForm(views.qcRule, lang, { ...rule(), name: `切换-${lang}`, modality: 'CT' });
      expect(await errorsOf(form)).toEqual([]);
      expect(form.query('minImages').take()?.visible).toBe(true);
      expect(form.query('timeLimitHours').take()?.visible).toBe(false);
      form.setValuesIn('type', 'exam');
      expect(form.query('minImages').take()?.visible).toBe(false);
      expect((await errorsOf(form)).map((e) => e.field)).toEqual(['timeLimitHours']);
      form.setValuesIn('timeLimitHours', 8);
      expect(await errorsOf(form)).toEqual([]);
      const sent = JSON.parse(JSON.stringify(form.values));
      expect(sent).not.toHaveProperty('minImages');
      expect(sent).not.toHaveProperty('modality');
      const saved = await p.app.inject({ method: 'POST', url: '/api/qc/v1/rule/save', headers: authed(admin), payload: sent });
      expect(saved.json()).toMatchObject({ status: '0', data: { type: 'exam', timeLimitHours: 8, items: [{ name: '伪影' }, { name: '体位' }] } });
    });

    test('a valid payload passes both', async () => {
      expect(await formErrors(views.device, lang, device())).toEqual([]);
      const saved = await p.app.inject({ method: 'POST', url: '/api/ris/v1/device/save', headers: authed(admin), payload: { ...device(), name: `P-${lang}`, aeTitle: `P_${lang.replace('-', '')}`, ip: lang === 'zh-CN' ? '10.9.9.1' : '10.9.9.2' } });
      expect(saved.json().status).toBe('0');
    });
  });

  describe('and accept alike', () => {
    let n = 0;
    const his = () => ({ hospitalId, name: `HIS-${++n}`, url: 'http://his.example.cn/api', timeoutSeconds: 30 });
    const astral = '\u{20000}'.repeat(32);
    // [view, field, value, does the server accept it]
    const values: Array<[string, string, unknown, boolean]> = [
      ['hisInterface', 'url', 'http://10.1.1.5:8080/his', true],
      ['hisInterface', 'url', 'http://192.168.0.10/his', true],
      ['hisInterface', 'url', 'http://127.0.0.1:9000', true],
      ['hisInterface', 'url', 'http://[fe80::1]:8080/his', true],
      ['hisInterface', 'url', 'https://his.hospital.example.cn/api/v2?site=3#top', true],
      ['hisInterface', 'url', 'http://his-server:8080/ws', true],
      ['hisInterface', 'url', 'ftp://10.0.0.1/exports', true],
      ['hisInterface', 'url', 'his.example.cn/api', false],
      ['hisInterface', 'url', '/his/api', false],
      ['hisInterface', 'url', 'http://his server/api', false],
      ['hisInterface', 'contactEmail', 'ops.his+alerts@hospital.example.cn', true],
      ['hisInterface', 'contactEmail', 'a@b.cn', true],
      ['hisInterface', 'contactEmail', 'ops@localhost', false],
      ['hisInterface', 'contactEmail', 'ops.hospital.example.cn', false],
      ['hisInterface', 'contactEmail', 'ops@@hospital.cn', false],
      ['hisInterface', 'contactMobile', '13800000000', true],
      ['hisInterface', 'contactMobile', '+8619912345678', true],
      ['hisInterface', 'contactMobile', '12800000000', false],
      ['hisInterface', 'contactMobile', '1380000000', false],
      ['hisInterface', 'timeoutSeconds', 1, true],
      ['hisInterface', 'timeoutSeconds', 120, true],
      ['hisInterface', 'timeoutSeconds', 0, false],
      ['hisInterface', 'timeoutSeconds', 121, false],
      ['hisInterface', 'name', 'N'.repeat(32), true],
      ['hisInterface', 'name', astral, true],
      ['hisInterface', 'name', 'N'.repeat(33), false],
      ['device', 'ip', '10.1.1.5', true],
      ['device', 'ip', '0.0.0.0', true],
      ['device', 'ip', '10.1.1', false],
      ['device', 'ip', '010.1.1.5', false],
      ['device', 'port', 0, true],
      ['device', 'port', 65535, true],
    ];
    const bases: Record<string, string> = { hisInterface: '/api/bdt/v1/hisInterface', device: '/api/ris/v1/device' };
    let d = 0;
    const unique = (viewName: string) =>
      viewName === 'device' ? { ...device(), name: `ACC-${++d}`, aeTitle: `ACC_${d}`, ip: `10.8.${d}.1` } : his();

    test.each(values)('%s.%s = %j: server accepts %s, and so does the form', async (viewName, field, value, accepted) => {
      const payload = { ...unique(viewName), [field]: value };
      const reply = await p.app.inject({ method: 'POST', url: `${bases[viewName]}/save`, headers: authed(admin), payload });
      const body = reply.json();
      if (accepted) expect(body.status).toBe('0');
      else expect(body).toMatchObject({ status: 'UAA421', field });
      const errors = await formErrors(views[viewName], 'en-US', JSON.parse(JSON.stringify(payload)));
      expect(errors.map((e) => e.field)).toEqual(accepted ? [] : [field]);
    });

    describe("the registration form's identity numbers and mobiles, against the server's ajv", () => {
      const ajv = new Ajv({ ...AJV_OPTIONS.customOptions, strict: false });
      addFormats(ajv);
      customFormats(ajv);
      for (const schema of loadSchemas()) ajv.addSchema(schema);
      const serverAccepts = (field: string, value: unknown) => ajv.validate({ $ref: `entities/exam.json#/properties/${field}` }, value);
      const fieldErrors = async (field: string, value: unknown) => (await formErrors(views.exam, 'en-US', { [field]: value })).filter((e) => e.field === field);

      test.each([
        ['idNo', '11010519491231002X', true],
        ['idNo', '11010519491231002x', true],
        ['idNo', '110105194912310021', false],
        ['idNo', '11010519490230002X', false],
        ['idNo', '11010519491231002', false],
        ['phone', '13912345678', true],
        ['phone', '+8613912345678', true],
        ['phone', '8613912345678', false],
        ['phone', '10912345678', false],
      ])('%s = %s: accepted %s by both', async (field, value, accepted) => {
        expect(serverAccepts(field, value)).toBe(accepted);
        expect(await fieldErrors(field, value)).toHaveLength(accepted ? 0 : 1);
      });
    });
  });
});
