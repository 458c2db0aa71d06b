/**
 * The schema catalogue (schemas/common.json, limits.json, codes/, entities/) as the
 * server validates it. Scenarios:
 * - every schema but the views compiles with the server's ajv options (server/lib/ajv.ts),
 *   its custom formats included; a Fastify instance with those options refuses an
 *   identity number with a wrong checksum in a body
 * - each entity of the catalogue accepts a valid example and refuses invalid ones, the
 *   failure naming the field (as the server's UAA421 reply does)
 * - shared primitives: IPv4, port, id card, letters/lower/upper-case
 * - the format functions (config/formats.ts) on their edge cases, and the client's
 *   Formily rule running the same function
 * - limits.json: integer constants, read by config/limits.ts, equal to the bounds of
 *   common.json and the entities; commonSetting's defaults equal config/defaults.json
 * - every code value has its text in zh-CN, en-US and ru-RU, and this catalogue's
 *   tables in es-ES too
 */
import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import Fastify from 'fastify';
import defaults from '../../config/defaults.json';
import { isIdCard, isLetters, isLowercase, isMobileCn, isUppercase, STRING_FORMATS } from '../../config/formats';
import { LIMITS } from '../../config/limits';
import { resources } from '../../locales';
import limitsSchema from '../../schemas/limits.json';
import { AJV_OPTIONS } from '../../server/lib/ajv';
import { loadSchemas } from '../../server/lib/schemas';
import { toFormily } from '@/schema/toFormily';
import type { View } from '@/shared/schema/types';

const schemas = loadSchemas();
const byId = new Map(schemas.map((s) => [s.$id, s as Record<string, any>]));

/** An ajv set up as Fastify's validator compiler sets up the server's (its defaults, then ours). */
function serverAjv(): Ajv {
  const ajv = new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: true, addUsedSchema: false, ...AJV_OPTIONS.customOptions });
  for (const plugin of AJV_OPTIONS.plugins) plugin(ajv);
  addFormats(ajv);
  for (const s of schemas) ajv.addSchema(s);
  return ajv;
}

const ajv = serverAjv();

function validator(ref: string): ValidateFunction {
  const v = ajv.getSchema(ref);
  if (!v) throw new Error(`no schema ${ref}`);
  return v;
}

/** The field the first error names, dotted as in the server's reply ("items.0.organId"). */
function fieldOf(e: ErrorObject): string {
  const parts = e.instancePath.split('/').filter(Boolean);
  const extra = (e.params as { missingProperty?: string }).missingProperty;
  return [...parts, ...(extra ? [extra] : [])].join('.');
}

/**
 * null when valid, else the field the server would name. Validates a JSON copy, as a
 * request body arrives: the server's ajv fills defaults in place, and jest's
 * structuredClone makes objects of another realm that ajv's uniqueItems misjudges.
 */
function failure(ref: string, data: unknown): string | null {
  const v = validator(ref);
  return v(JSON.parse(JSON.stringify(data))) ? null : fieldOf(v.errors![0]);
}

const long = (n: number) => '字'.repeat(n);
const at = '2026-03-01T08:00:00Z';

describe('every schema compiles with the server ajv', () => {
  test('the catalogue is all there', () => {
    const ids = schemas.map((s) => s.$id);
    for (const e of ['exam', 'report', 'printLayout', 'reportOperationLog', 'template', 'consultation', 'expert', 'qcForm', 'shareLog', 'aiResult', 'commonSetting', 'userSession']) {
      expect(ids).toContain(`entities/${e}.json`);
    }
    expect(ids).toContain('limits.json');
    expect(ids.filter((id) => id.startsWith('views/'))).toEqual([]);
  });

  test.each(schemas.map((s) => [s.$id]))('%s', (id) => {
    expect(() => validator(id)).not.toThrow();
  });

  test('without the custom formats, schemas using them do not compile (so registering them matters)', () => {
    const bare = new Ajv({ ...AJV_OPTIONS.customOptions });
    addFormats(bare);
    for (const s of schemas) bare.addSchema(s);
    expect(() => bare.getSchema('common.json#/definitions/idCard')).toThrow(/unknown format "id-card"/);
  });

  test('a Fastify instance with the server options checks the id-card format in a body', async () => {
    const app = Fastify({ ajv: AJV_OPTIONS, logger: false });
    for (const s of schemas) app.addSchema(s);
    app.post('/exam', { schema: { body: { $ref: 'entities/exam.json#' } } }, async () => ({ ok: true }));
    const exam = { ...validExam, idNo: '110105194912310021' };
    const bad = await app.inject({ method: 'POST', url: '/exam', payload: exam });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/idNo.*id-card/);
    const good = await app.inject({ method: 'POST', url: '/exam', payload: validExam });
    expect(good.statusCode).toBe(200);
    await app.close();
  });
});

const validExam = {
  hospitalId: 1,
  hisPatientName: '张三',
  hisPatientNameEn: 'Zhang San',
  idNo: '11010519491231002X',
  sex: 1,
  age: 35,
  ageUnit: 4,
  birthDate: '1990-05-06',
  phone: '13800000001',
  patientSource: 1,
  outPatientNo: 'MZ0001',
  studyUID: '1.2.840.113619.2.55.3',
  appointment: true,
  appointTime: at,
  payment: 1,
  clinicalDiagnosis: '咳嗽两周',
  items: [{ itemId: 3, organId: 7 }],
  filmType: 2,
  superiorHospitalId: null,
  price: 120.5,
};

/** entity → [valid examples, [invalid example, field named]...] */
const cases: Record<string, { valid: unknown[]; invalid: Array<[string, unknown, string]> }> = {
  exam: {
    valid: [validExam, { ...validExam, outPatientNo: undefined, inPatientNo: 'ZY01', ageUnit: 0, age: 365 }],
    invalid: [
      ['age 0', { ...validExam, age: 0 }, 'age'],
      ['age 366', { ...validExam, age: 366 }, 'age'],
      ['age without unit', { ...validExam, ageUnit: undefined }, 'ageUnit'],
      ['unknown age unit', { ...validExam, ageUnit: 5 }, 'ageUnit'],
      ['clinical diagnosis of 2001 characters', { ...validExam, clinicalDiagnosis: long(2001) }, 'clinicalDiagnosis'],
      ['id card with a wrong check digit', { ...validExam, idNo: '110105194912310021' }, 'idNo'],
      ['no exam item', { ...validExam, items: [] }, 'items'],
      ['an item twice', { ...validExam, items: [{ itemId: 3, organId: 7 }, { itemId: 3, organId: 7 }] }, 'items'],
      ['an item without its body part', { ...validExam, items: [{ itemId: 3 }] }, 'items.0.organId'],
      ['neither inpatient nor outpatient number', { ...validExam, outPatientNo: undefined }, 'outPatientNo'],
      ['phone off the mainland rule', { ...validExam, phone: '12800000001' }, 'phone'],
      ['study UID not dotted digits', { ...validExam, studyUID: '1.2.abc' }, 'studyUID'],
      ['negative price', { ...validExam, price: -1 }, 'price'],
      ['unknown patient source', { ...validExam, patientSource: 5 }, 'patientSource'],
    ],
  },
  report: {
    valid: [
      { examId: 1, see: '双肺纹理清晰。', diagnosis: '未见异常。', remark: '复查' },
      { examId: 1, enableCrisisValue: true, crisisValue: { recorder: '李四', recordTime: at, description: '气胸，已电话通知' } },
    ],
    invalid: [
      ['findings of 3001 characters', { examId: 1, see: long(3001) }, 'see'],
      ['empty diagnosis', { examId: 1, diagnosis: '' }, 'diagnosis'],
      ['remark of 151 characters', { examId: 1, remark: long(151) }, 'remark'],
      ['critical value without its details', { examId: 1, enableCrisisValue: true }, 'crisisValue'],
      ['critical description of 1 character', { examId: 1, enableCrisisValue: true, crisisValue: { description: '急' } }, 'crisisValue.description'],
      ['recorder of 11 characters', { examId: 1, crisisValue: { description: '气胸', recorder: long(11) } }, 'crisisValue.recorder'],
      ['no exam', { see: '所见' }, 'examId'],
    ],
  },
  printLayout: {
    valid: [{ name: 'default', title: '医学影像诊断报告单', hospitalIds: [], fields: [{ field: 'examCode', group: 'header' }, { field: 'see', group: 'body', label: '影像所见' }], retrialSignature: true }],
    invalid: [
      ['no title', { name: 'default', fields: [{ field: 'see', group: 'body' }] }, 'title'],
      ['a name that is no file name', { name: '默认', title: '报告', fields: [{ field: 'see', group: 'body' }] }, 'name'],
      ['no printed item', { name: 'default', title: '报告', fields: [] }, 'fields'],
      ['unknown item', { name: 'default', title: '报告', fields: [{ field: 'shoeSize', group: 'header' }] }, 'fields.0.field'],
      ['unknown block', { name: 'default', title: '报告', fields: [{ field: 'see', group: 'margin' }] }, 'fields.0.group'],
      ['hospital id 0', { name: 'default', title: '报告', fields: [{ field: 'see', group: 'body' }], hospitalIds: [0] }, 'hospitalIds.0'],
    ],
  },
  reportOperationLog: {
    valid: [{ examId: 1, reportId: null, type: 'submitSuperiorAudit', operatorName: '王五', operateTime: at, reason: null }],
    invalid: [
      ['unknown operation', { examId: 1, type: 'explode', operatorName: '王五', operateTime: at }, 'type'],
      ['no time', { examId: 1, type: 'submit', operatorName: '王五' }, 'operateTime'],
    ],
  },
  template: {
    valid: [{ scope: 'private', className1: 'CT', className2: '胸部', templateName: '肺炎', see: '斑片影', diagnosis: '肺炎' }],
    invalid: [
      ['name of 17 characters', { scope: 'public', className1: 'CT', className2: '胸部', templateName: long(17) }, 'templateName'],
      ['empty level 1 class', { scope: 'public', className1: '', className2: '胸部', templateName: '肺炎' }, 'className1'],
      ['no level 2 class', { scope: 'public', className1: 'CT', templateName: '肺炎' }, 'className2'],
      ['unknown scope', { scope: 'shared', className1: 'CT', className2: '胸部', templateName: '肺炎' }, 'scope'],
    ],
  },
  consultation: {
    valid: [
      { title: '疑难病例', startTime: at, endTime: at, topic: '肺部阴影', patientName: '赵六', birthDate: '1980-05-06', expertIds: [2], examIds: [10] },
      {
        title: '疑难病例',
        startTime: at,
        endTime: at,
        topic: '肺部阴影',
        patientName: '赵六',
        sex: 2,
        birthDate: '1980-05-06',
        expertIds: [2, 3],
        attachments: [{ type: 2, name: '病理.pdf', url: 'consult/1/a.pdf', size: 52428800 }],
      },
    ],
    invalid: [
      ['no expert', { title: '会诊', startTime: at, endTime: at, topic: '主题', patientName: '赵六', birthDate: '1980-05-06', expertIds: [], examIds: [1] }, 'expertIds'],
      ['21 exams', { title: '会诊', startTime: at, endTime: at, topic: '主题', patientName: '赵六', birthDate: '1980-05-06', expertIds: [2], examIds: Array.from({ length: 21 }, (_, i) => i + 1) }, 'examIds'],
      ['neither exam nor material', { title: '会诊', startTime: at, endTime: at, topic: '主题', patientName: '赵六', birthDate: '1980-05-06', expertIds: [2] }, 'examIds'],
      ['a file over 50 MB', { title: '会诊', startTime: at, endTime: at, topic: '主题', patientName: '赵六', birthDate: '1980-05-06', expertIds: [2], attachments: [{ type: 1, name: 'a', url: 'a', size: 52428801 }] }, 'attachments.0.size'],
      ['unknown material type', { title: '会诊', startTime: at, endTime: at, topic: '主题', patientName: '赵六', birthDate: '1980-05-06', expertIds: [2], attachments: [{ type: 7, name: 'a', url: 'a' }] }, 'attachments.0.type'],
      ['no birth date', { title: '会诊', startTime: at, endTime: at, topic: '主题', patientName: '赵六', expertIds: [2], examIds: [1] }, 'birthDate'],
      ['no topic', { title: '会诊', startTime: at, endTime: at, patientName: '赵六', birthDate: '1980-05-06', expertIds: [2], examIds: [1] }, 'topic'],
    ],
  },
  expert: {
    valid: [{ name: '钱七', mobile: '13900000002', hospitalId: 1, state: 1, title: 4, labels: ['胸部', '心血管'], avatar: 'avatars/7.png' }],
    invalid: [
      ['six labels', { name: '钱七', mobile: '13900000002', hospitalId: 1, state: 1, labels: ['a', 'b', 'c', 'd', 'e', 'f'] }, 'labels'],
      ['a label twice', { name: '钱七', mobile: '13900000002', hospitalId: 1, state: 1, labels: ['a', 'a'] }, 'labels'],
      ['bad mobile', { name: '钱七', mobile: '1390000000', hospitalId: 1, state: 1 }, 'mobile'],
      ['unknown state', { name: '钱七', mobile: '13900000002', hospitalId: 1, state: 2 }, 'state'],
    ],
  },
  qcForm: {
    valid: [{ formName: '影像质控', examId: 1, grades: ['A', 'B', 'C'], grade: 'A', positive: false, diseases: ['肺炎'], recorder: '孙八', reason: '图像清晰' }],
    invalid: [
      ['one grade', { formName: '质控', examId: 1, grades: ['A'], grade: 'A' }, 'grades'],
      ['seven grades', { formName: '质控', examId: 1, grades: ['1', '2', '3', '4', 'A', 'B', 'C'], grade: 'A' }, 'grades'],
      ['level 5 (digits 1-4 only)', { formName: '质控', examId: 1, grades: ['A', 'B'], grade: '5' }, 'grade'],
      ['16 diseases', { formName: '质控', examId: 1, grades: ['A', 'B'], grade: 'A', diseases: Array.from({ length: 16 }, (_, i) => `病${i}`) }, 'diseases'],
      ['a disease name of 21 characters', { formName: '质控', examId: 1, grades: ['A', 'B'], grade: 'A', diseases: [long(21)] }, 'diseases.0'],
      ['a disease twice', { formName: '质控', examId: 1, grades: ['A', 'B'], grade: 'A', diseases: ['肺炎', '肺炎'] }, 'diseases'],
      ['recorder of 11 characters', { formName: '质控', examId: 1, grades: ['A', 'B'], grade: 'A', recorder: long(11) }, 'recorder'],
      ['reason of 1 character', { formName: '质控', examId: 1, grades: ['A', 'B'], grade: 'A', reason: '差' }, 'reason'],
    ],
  },
  shareLog: {
    valid: [{ examCode: 'E1', platform: 2, shareType: 1, shareTime: at, expireTime: null, ip: '10.0.0.1', openRecords: [{ openTime: at, ip: '10.0.0.2', platform: 3 }] }],
    invalid: [
      ['IP 256.1.1.1', { examCode: 'E1', platform: 2, shareType: 1, shareTime: at, ip: '256.1.1.1' }, 'ip'],
      ['share type 3', { examCode: 'E1', platform: 2, shareType: 3, shareTime: at }, 'shareType'],
      ['an open record without time', { examCode: 'E1', platform: 2, shareType: 1, shareTime: at, openRecords: [{ ip: '10.0.0.2' }] }, 'openRecords.0.openTime'],
    ],
  },
  aiResult: {
    valid: [{ examId: 1, aiType: 'ctBoneDensity', state: 3, boneDensityResult: 'osteoporosis' }, { examId: 1, aiType: 'lungNodule', result: 'positive' }],
    invalid: [
      ['unknown algorithm', { examId: 1, aiType: 'xray' }, 'aiType'],
      ['unknown bone density class', { examId: 1, aiType: 'ctBoneDensity', boneDensityResult: 'fragile' }, 'boneDensityResult'],
      ['unknown result', { examId: 1, aiType: 'thyroid', result: 'maybe' }, 'result'],
    ],
  },
  commonSetting: {
    valid: [{}, { examNotice: { noticeOpen: true, modelList: ['report', 'remote'], interval: 1, duration: 30 } }],
    invalid: [
      ['frequency 0', { examNotice: { interval: 0 } }, 'examNotice.interval'],
      ['unknown module', { examNotice: { modelList: ['pacs'] } }, 'examNotice.modelList.0'],
      ['three screens', { viewConfig: { openModel: 'triple' } }, 'viewConfig.openModel'],
      ['refresh 0', { refresh: { duration: 0 } }, 'refresh.duration'],
    ],
  },
  userSession: {
    valid: [
      {
        token: 'abc',
        userId: 1,
        name: '张三',
        hospitalId: null,
        hospitalName: null,
        permissionMap: {},
        menuList: [],
        dataScopes: { all: false, hospitalIds: [], conditionSets: [] },
      },
      {
        userId: 1,
        name: '张三',
        hospitalId: 2,
        roles: [{ id: 3, name: '医生' }],
        permissionMap: { report: ['write', 'verify'] },
        menuList: ['report'],
        dataScopes: { all: false, hospitalIds: [2], conditionSets: [{ logic: 'and', conditions: [{ field: 'hospitalId', op: 'eq', value: '2' }] }] },
        setting: {},
      },
    ],
    invalid: [
      // Not 0: the server's coerceTypes reads 0 as null where null is allowed.
      ['hospital -1', { userId: 1, name: '张三', hospitalId: -1, permissionMap: {}, menuList: [] }, 'hospitalId'],
      ['no menus', { userId: 1, name: '张三', hospitalId: 2, permissionMap: {} }, 'menuList'],
      // A lone action name would be coerced into a list (coerceTypes 'array'); an empty one is refused.
      ['an empty action name', { userId: 1, name: '张三', hospitalId: 2, permissionMap: { report: [''] }, menuList: [] }, 'permissionMap.report.0'],
      ['unknown operator', { userId: 1, name: '张三', hospitalId: 2, permissionMap: {}, menuList: [], dataScopes: { all: false, hospitalIds: [], conditionSets: [{ logic: 'and', conditions: [{ field: 'a', op: 'like', value: '1' }] }] } }, 'dataScopes.conditionSets.0.conditions.0.op'],
    ],
  },
};

describe.each(Object.entries(cases))('entities/%s.json', (entity, { valid, invalid }) => {
  const ref = `entities/${entity}.json`;
  test.each(valid.map((v, i) => [i, v]))('accepts valid example %s', (_i, example) => {
    expect(failure(ref, example)).toBeNull();
  });
  test.each(invalid)('refuses %s, naming the field', (_what, example, field) => {
    expect(failure(ref, example)).toBe(field);
  });
});

describe('shared primitives', () => {
  const def = (name: string) => `common.json#/definitions/${name}`;
  const ok = (name: string, value: unknown) => failure(def(name), value) === null;

  test('IPv4 and port', () => {
    expect(ok('ipv4', '192.168.1.254')).toBe(true);
    expect(ok('ipv4', '256.1.1.1')).toBe(false);
    expect(ok('ipv4', '1.2.3')).toBe(false);
    expect(ok('port', 0)).toBe(true);
    expect(ok('port', 65535)).toBe(true);
    expect(ok('port', 65536)).toBe(false);
    expect(ok('port', -1)).toBe(false);
  });

  test('id card: shape and checksum', () => {
    expect(ok('idCard', '11010519491231002X')).toBe(true);
    expect(ok('idCard', '11010519491231002x')).toBe(true);
    expect(ok('idCard', '110105194912310021')).toBe(false);
    expect(ok('idCard', '11010519491231002')).toBe(false);
  });

  test('letters, lower and upper case, mobile-cn, age', () => {
    expect(ok('letters', 'FSk')).toBe(true);
    expect(ok('letters', 'FS1')).toBe(false);
    expect(ok('letters', '')).toBe(false);
    expect(ok('lowercase', 'ct')).toBe(true);
    expect(ok('lowercase', 'Ct')).toBe(false);
    expect(ok('uppercase', 'CT')).toBe(true);
    expect(ok('uppercase', 'cT')).toBe(false);
    expect(ok('mobileCn', '+8613800000001')).toBe(true);
    expect(ok('mobileCn', '12800000001')).toBe(false);
    expect(ok('age', 1)).toBe(true);
    expect(ok('age', 365)).toBe(true);
    expect(ok('age', 0)).toBe(false);
    expect(ok('age', 1.5)).toBe(false);
  });
});

/** The MOD 11-2 check character, computed here independently of config/formats.ts. */
function withCheck(first17: string): string {
  const weights = first17.split('').map((_, i) => 2 ** (17 - i) % 11);
  const sum = first17.split('').reduce((s, d, i) => s + Number(d) * weights[i], 0);
  return first17 + '10X98765432'[sum % 11];
}

describe('format functions (config/formats.ts)', () => {
  test('id-card: the standard example, its last digit changed, and the cases around it', () => {
    expect(isIdCard('11010519491231002X')).toBe(true);
    expect(isIdCard('11010519491231002x')).toBe(true);
    expect(isIdCard('110105194912310021')).toBe(false);
    expect(isIdCard('110105194912310020')).toBe(false);
    expect(withCheck('11010519491231002')).toBe('11010519491231002X');
    expect(isIdCard(withCheck('44052418800101001'))).toBe(true);
    // Right checksum, impossible birth date.
    expect(isIdCard(withCheck('11010519490230002'))).toBe(false);
    expect(isIdCard(withCheck('11010519491301002'))).toBe(false);
    expect(isIdCard(withCheck('11010520000229002'))).toBe(true);
    expect(isIdCard(withCheck('11010519000229002'))).toBe(false);
    // Shape: 18 characters, no leading 0, X only last.
    expect(isIdCard('11010519491231002')).toBe(false);
    expect(isIdCard('11010519491231002XX')).toBe(false);
    expect(isIdCard(withCheck('01010519491231002'))).toBe(false);
    expect(isIdCard('1101051949123100X2')).toBe(false);
    expect(isIdCard('')).toBe(false);
  });

  test('mobile-cn', () => {
    expect(isMobileCn('13800000001')).toBe(true);
    expect(isMobileCn('+8619912345678')).toBe(true);
    expect(isMobileCn('12800000001')).toBe(false);
    expect(isMobileCn('1380000000')).toBe(false);
    expect(isMobileCn('138000000011')).toBe(false);
    expect(isMobileCn('8613800000001')).toBe(false);
    expect(isMobileCn('+86 13800000001')).toBe(false);
  });

  test('letters, lowercase, uppercase', () => {
    expect(isLetters('abcXYZ')).toBe(true);
    expect(isLetters('abc1')).toBe(false);
    expect(isLetters('é')).toBe(false);
    expect(isLetters('')).toBe(false);
    expect(isLowercase('abc')).toBe(true);
    expect(isLowercase('aBc')).toBe(false);
    expect(isLowercase('')).toBe(false);
    expect(isUppercase('ABC')).toBe(true);
    expect(isUppercase('ABc')).toBe(false);
    expect(isUppercase('A B')).toBe(false);
  });

  test('file-id: the file service’s ids (UUIDs)', () => {
    expect(STRING_FORMATS['file-id']('0b6f3c1e-9d2a-4c1b-8e7f-1a2b3c4d5e6f')).toBe(true);
    expect(STRING_FORMATS['file-id']('0B6F3C1E-9D2A-4C1B-8E7F-1A2B3C4D5E6F')).toBe(true);
    expect(STRING_FORMATS['file-id']('uploads/2026/a.png')).toBe(false);
    expect(STRING_FORMATS['file-id']('0b6f3c1e-9d2a-4c1b-8e7f-1a2b3c4d5e6')).toBe(false);
  });

  test('the format list names exactly these six', () => {
    expect(Object.keys(STRING_FORMATS).sort()).toEqual(['file-id', 'id-card', 'letters', 'lowercase', 'mobile-cn', 'uppercase']);
  });

  test('the client form runs the same function, with the validation.format message', async () => {
    const view = {
      $id: 'views/examTest.json',
      entity: 'exam',
      resource: 'exam',
      permission: 'registration',
      list: { columns: [] },
      form: { groups: [{ key: 'patientInfo', fields: ['idNo', 'age'] }] },
      routes: { list: '/x' },
    } as unknown as View;
    const t = (key: string, params?: Record<string, unknown>) => (params ? `${key} ${JSON.stringify(params)}` : key);
    const schema = toFormily(view, { t, mode: 'create' }) as { properties: { grid: { properties: Record<string, { 'x-validator': Array<Record<string, unknown>> }> } } };
    const rules = schema.properties.grid.properties.idNo['x-validator'];
    const rule = rules.find((r) => typeof r.validator === 'function') as { validator: (v: unknown) => boolean; message: string };
    expect(rule.message).toBe('validation.format {"field":"entity.exam.field.idNo"}');
    expect(rule.validator('11010519491231002X')).toBe(true);
    expect(rule.validator('110105194912310021')).toBe(false);
    expect(rule.validator('')).toBe(true); // emptiness is `required`'s to judge
    const age = schema.properties.grid.properties.age['x-validator'];
    expect(age).toEqual(expect.arrayContaining([expect.objectContaining({ minimum: 1 }), expect.objectContaining({ maximum: 365 })]));
  });
});

describe('limits.json', () => {
  const common = byId.get('common.json')!.definitions;
  const entity = (name: string) => byId.get(`entities/${name}.json`)!.properties;

  test('every limit is an integer constant and config/limits.ts reads them all', () => {
    const props = limitsSchema.properties as Record<string, { type: string; const: number }>;
    expect(Object.keys(props).length).toBeGreaterThan(40);
    for (const [name, p] of Object.entries(props)) {
      expect([name, p.type, Number.isInteger(p.const)]).toEqual([name, 'integer', true]);
      expect(LIMITS[name as keyof typeof LIMITS]).toBe(p.const);
    }
    expect(failure('limits.json', LIMITS)).toBeNull();
    expect(failure('limits.json', { ...LIMITS, loginMaxAttempts: 5 })).toBe('loginMaxAttempts');
  });

  test('the spec section 9 numbers', () => {
    expect(LIMITS).toMatchObject({
      loginMaxAttempts: 4,
      autoLoginDays: 7,
      compareStudiesMin: 2,
      compareStudiesMax: 16,
      exportRangeDays: 31,
      consultFilesPerUpload: 20,
      consultFileMaxBytes: 50 * 1024 * 1024,
      consultExamsMax: 20,
      signatureMaxBytes: 1024 * 1024,
      signatureWidth: 200,
      signatureHeight: 130,
      avatarMaxBytes: 5 * 1024 * 1024,
      expertLabelsMax: 5,
      qcGradesMin: 2,
      qcGradesMax: 6,
      qcDiseasesMax: 15,
      ageMin: 1,
      ageMax: 365,
    });
  });

  test('common.json and the entities use the same numbers', () => {
    expect([common.age.minimum, common.age.maximum]).toEqual([LIMITS.ageMin, LIMITS.ageMax]);
    expect([common.password.minLength, common.password.maxLength]).toEqual([LIMITS.passwordMinLength, LIMITS.passwordMaxLength]);
    expect([common.username.minLength, common.username.maxLength]).toEqual([LIMITS.usernameMinLength, LIMITS.usernameMaxLength]);
    expect(common.text3000.maxLength).toBe(LIMITS.findingsMaxLength);
    expect(common.text3000.maxLength).toBe(LIMITS.diagnosisMaxLength);
    expect(common.text3000.maxLength).toBe(LIMITS.returnReasonMaxLength);
    expect(common.text200.maxLength).toBe(LIMITS.rejectReasonMaxLength);
    expect(common.text200.maxLength).toBe(LIMITS.withdrawReasonMaxLength);
    expect([common.text150.minLength, common.text150.maxLength]).toEqual([LIMITS.remarkMinLength, LIMITS.remarkMaxLength]);
    expect(common.text16.maxLength).toBe(LIMITS.templateNameMaxLength);
    expect(common.text2000.maxLength).toBe(LIMITS.clinicalDiagnosisMaxLength);
    expect([common.reason2to2000.minLength, common.reason2to2000.maxLength]).toEqual([LIMITS.criticalReasonMinLength, LIMITS.criticalReasonMaxLength]);
    expect([common.reason2to100.minLength, common.reason2to100.maxLength]).toEqual([LIMITS.cancelReasonMinLength, LIMITS.cancelReasonMaxLength]);
    expect(common.text10.maxLength).toBe(LIMITS.recorderMaxLength);
    expect(common.text20.maxLength).toBe(LIMITS.diseaseNameMaxLength);
    expect(common.labels.maxItems).toBe(LIMITS.expertLabelsMax);
    expect([common.qcGrades.minItems, common.qcGrades.maxItems]).toEqual([LIMITS.qcGradesMin, LIMITS.qcGradesMax]);
    expect(common.diseases.maxItems).toBe(LIMITS.qcDiseasesMax);
    expect(common.pageSize.maximum).toBe(LIMITS.pageSizeMax);
    expect(entity('consultation').examIds.maxItems).toBe(LIMITS.consultExamsMax);
    expect(entity('consultation').attachments.items.properties.size.maximum).toBe(LIMITS.consultFileMaxBytes);
    expect(entity('commonSetting').refresh.properties.duration.default).toBe(LIMITS.refreshDurationDefault);
  });

  test('commonSetting defaults equal config/defaults.json', () => {
    const filled: Record<string, unknown> = {};
    expect(validator('entities/commonSetting.json')(filled)).toBe(true);
    expect(filled).toEqual(defaults.commonSetting);
  });
});

describe('code texts', () => {
  const codesDir = path.resolve(__dirname, '..', '..', 'schemas', 'codes');
  const tables = fs.readdirSync(codesDir).filter((f) => f.endsWith('.json')).map((f) => path.basename(f, '.json'));
  const values = (table: string) => (byId.get(`codes/${table}.json`)!.enum as Array<string | number>);
  const missing = (lang: string, names: string[]) =>
    names.flatMap((table) => values(table).map((v) => `code.${table}.${v}`)).filter((k) => resources[lang][k] === undefined);
  /** The tables this catalogue added; es-ES must have their texts too. */
  const catalogue = [
    'ageUnit', 'patientSource', 'filmType', 'registerType', 'examState', 'reportState', 'consultState', 'consultReportState',
    'attachmentType', 'sharePlatform', 'shareType', 'aiType', 'aiResult', 'aiState', 'boneDensityResult', 'deviceState',
    'credentialType', 'paymentState', 'printState', 'qcState', 'expertState', 'templateScope', 'noticeModule', 'screenMode',
    'viewerOption', 'reportOperationType', 'printField',
  ];

  test('each code table is a typed enum whose description says where its texts are', () => {
    for (const table of tables) {
      const s = byId.get(`codes/${table}.json`)!;
      expect(['integer', 'string']).toContain(s.type);
      expect(new Set(s.enum).size).toBe(s.enum.length);
      expect(s.enum.every((v: unknown) => typeof v === (s.type === 'integer' ? 'number' : 'string'))).toBe(true);
      expect(s.description).toContain(`code.${table}.<value>`);
    }
    expect(tables).toEqual(expect.arrayContaining(catalogue));
  });

  test('the spec\'s numbers', () => {
    expect(values('ageUnit')).toEqual([0, 1, 2, 3, 4]);
    expect(values('patientSource')).toEqual([1, 2, 3, 4, 99]);
    expect(values('examState')).toEqual([1, 2, 3]);
    expect(values('attachmentType')).toEqual([1, 2, 3, 4, 5, 6]);
    expect(values('shareType')).toEqual([1, 2]);
    expect(values('deviceState')).toEqual([0, 1]);
    expect(values('aiType')).toHaveLength(12);
    expect(values('aiResult')).toEqual(['positive', 'negative', 'none']);
    expect(values('boneDensityResult')).toEqual(['normal', 'lowBoneMass', 'osteoporosis']);
    expect(values('consultState')).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(values('consultReportState')).toEqual([-1, 1, 2, 3, 4]);
  });

  test.each(['zh-CN', 'en-US', 'ru-RU'])('%s has a text for every code value', (lang) => {
    expect(missing(lang, tables)).toEqual([]);
  });

  test('es-ES has the texts of this catalogue\'s tables', () => {
    expect(missing('es-ES', catalogue)).toEqual([]);
  });
});
