/**
 * One rule, one message: the same invalid payload is refused with the same field
 * message by the generated form (Formily, with the validators src/schema/toFormily.ts
 * derives from the entity schema) and, sent directly, by the server (ajv on the same
 * schema). For each single-fault payload on the device and exam-item forms, the form's
 * only error is on the field the server names, with the server's `detail` text, in
 * zh-CN and in en-US.
 */
import { createForm, type Form } from '@formily/core';
import type { ISchema } from '@formily/json-schema';
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

    test('a valid payload passes both', async () => {
      expect(await formErrors(views.device, lang, device())).toEqual([]);
      const saved = await p.app.inject({ method: 'POST', url: '/api/ris/v1/device/save', headers: authed(admin), payload: { ...device(), name: `P-${lang}`, aeTitle: `P_${lang.replace('-', '')}`, ip: lang === 'zh-CN' ? '10.9.9.1' : '10.9.9.2' } });
      expect(saved.json().status).toBe('0');
    });
  });
});
