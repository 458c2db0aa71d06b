/**
 * First-run data, under the startup advisory lock after the migrations:
 * - the demo region (organisations, departments, roles, accounts) into an empty
 *   database when SEED_DEMO is on (the default);
 * - otherwise, on a production install, the first administrator from ADMIN_MOBILE
 *   and ADMIN_PASSWORD when no user exists yet.
 */
import type { Db, Queryable } from './db';
import type { IdentityConfig } from './config';
import { DEMO_ORGS } from '../mock/region';
import { DEMO_DEVICES, DEMO_EXAM_ITEMS, DEMO_ORGANS, DEMO_QC_RULES, DEMO_SCHEDULE_RULES, demoDeviceAddress } from '../mock/baseData';
import { DEMO_DEPARTMENTS, DEMO_PASSWORD, DEMO_ROLES, DEMO_USERS, type DemoRole } from '../mock/identity';
import { demoExams } from '../mock/exams';
import { DEMO_CONSULTATIONS, DEMO_EXPERTS } from '../mock/consult';
import { clockStart } from './report/turnaround';
import { insertDemoReports } from './report/seed';
import { saveUserSetting } from './identity/userSettings';
import { syntheticSeries } from '../mock/dicom';
import type { Archive, IngestResult } from './pacs/archive';
import { linkStudy } from './pacs/matching';
import { ageFromBirthDate, dayKey, formatExamCode, formatPatientId, pinyinName, REGION_TIME_ZONE } from './lib/examRules';
import { allPermissions, MODULES, type PermissionMap } from './identity/access';
import { hashPassword, isWeakPassword, PASSWORD_PATTERN } from './identity/passwords';

/** `now`: the instant the demo exams are generated back from (DEMO_NOW in tests). */
export async function seedDemo(locked: Db, now: Date = new Date()): Promise<boolean> {
  const { rows } = await locked.query<{ n: number }>('SELECT count(*)::int AS n FROM org');
  if (rows[0].n > 0) return false;
  // Hash outside the transaction: it is the slow part, and one hash per account is enough.
  const hashes = await Promise.all(DEMO_USERS.map(() => hashPassword(DEMO_PASSWORD)));
  await locked.tx(async (q) => {
    const orgs = await insertOrgs(q);
    const departments = new Map<string, number>();
    for (const [code, id] of orgs) {
      for (const [dCode, name, shortcut] of DEMO_DEPARTMENTS) {
        const r = await q.query<{ id: number }>('INSERT INTO department (hospital_id, code, name, shortcut) VALUES ($1, $2, $3, $4) RETURNING id', [id, dCode, name, shortcut]);
        departments.set(`${code}/${dCode}`, r.rows[0].id);
      }
    }
    await insertBaseData(q, orgs, departments);
    const roles = new Map<string, number>();
    for (const role of DEMO_ROLES) roles.set(role.key, await insertRole(q, role, orgs));
    for (const [i, user] of DEMO_USERS.entries()) {
      const r = await q.query<{ id: number }>(
        `INSERT INTO app_user (mobile, username, name, work_no, sex, title, status, password_hash, password_weak)
         VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $8) RETURNING id`,
        [user.mobile, user.username, user.name, user.workNo, user.sex, user.title, hashes[i], isWeakPassword(DEMO_PASSWORD)],
      );
      for (const [position, [orgCode, roleKey, deptCode]] of user.memberships.entries()) {
        await q.query('INSERT INTO user_membership (user_id, hospital_id, role_id, department_id, position) VALUES ($1, $2, $3, $4, $5)', [
          r.rows[0].id,
          orgs.get(orgCode),
          roles.get(roleKey),
          deptCode ? departments.get(`${orgCode}/${deptCode}`) : null,
          position,
        ]);
      }
      for (const [module, value] of Object.entries(user.commonSetting ?? {})) await saveUserSetting(q, r.rows[0].id, module, value);
    }
    await insertDemoExams(q, now);
    await insertDemoReports(q);
    await startDemoClocks(q, now);
    await insertDemoExperts(q, orgs);
    await insertDemoConsultations(q, orgs, now);
    await q.query(
      `INSERT INTO app_meta (key, value) VALUES ('demo_seeded_at', to_jsonb(now()::text))
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = now()`,
    );
  });
  return true;
}

/** The central hospital's consultation experts, linked to their demo accounts (mock/consult.ts). */
async function insertDemoExperts(q: Queryable, orgs: Map<string, number>): Promise<void> {
  for (const x of DEMO_EXPERTS) {
    await q.query(
      `INSERT INTO expert (hospital_id, user_id, name, mobile, department_name, title, labels, introduction, specialty, expertise, state)
       VALUES ($1, (SELECT id FROM app_user WHERE mobile = $2), $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [orgs.get(x.hospitalCode), x.userMobile ?? null, x.name, x.mobile, x.departmentName, x.title, x.labels, x.introduction, x.specialty, x.expertise, x.state],
    );
  }
}

/**
 * The demo reports sent up get the clocks sending them would have started, from the
 * time their record says they were sent (server/report/turnaround.ts): due times and
 * priorities on the lists, and /remotecenter's figures.
 */
async function startDemoClocks(q: Queryable, now: Date): Promise<void> {
  const { rows } = await q.query<{ id: number; hospital_id: number; sent: Date }>(
    `SELECT id, superior_hospital_id AS hospital_id, superior_send_time AS sent FROM report
      WHERE sent_to_superior AND due_at IS NULL AND superior_hospital_id IS NOT NULL AND superior_send_time IS NOT NULL ORDER BY id`,
  );
  for (const r of rows) {
    const set = await clockStart(q, r.id, r.hospital_id, new Date(r.sent));
    // Already past due when seeded: noted as the sweep would have, so it has nothing left to do.
    if ((set.due_at as Date) <= now) set.overdue_at = set.due_at;
    const columns = Object.keys(set);
    await q.query(`UPDATE report SET ${columns.map((c, i) => `${c} = $${i + 2}`).join(', ')} WHERE id = $1`, [r.id, ...columns.map((c) => set[c])]);
  }
}

/**
 * Demo consultations (mock/consult.ts), each with the operation-log entry of its
 * application; numbered as the service numbers them (HZ + date + sequence).
 */
async function insertDemoConsultations(q: Queryable, orgs: Map<string, number>, now: Date): Promise<void> {
  for (const [i, c] of DEMO_CONSULTATIONS.entries()) {
    const start = new Date(now.getTime() - c.days * 86_400_000);
    const created = new Date(Math.min(now.getTime(), start.getTime()) - 2 * 86_400_000);
    const no = `HZ${created.toISOString().slice(0, 10).replace(/-/g, '')}${String(9001 + i)}`;
    const { rows } = await q.query<{ id: number; applicant_id: number; applicant_name: string }>(
      `INSERT INTO consultation (consult_no, title, apply_hospital_id, consult_hospital_id, applicant_id, applicant_name, status, report_status,
                                 start_time, end_time, topic, patient_name, sex, birth_date, expert_ids, created_at, updated_at)
       SELECT $1, $2, $3, $4, u.id, u.name, $5, $6, $7, $7::timestamptz + interval '1 hour', $2, $8, $9, $10,
              ARRAY(SELECT id FROM expert WHERE mobile = ANY($11) ORDER BY id), $12, $12
         FROM app_user u WHERE u.mobile = $13
       RETURNING id, applicant_id, applicant_name`,
      [no, c.topic, orgs.get(c.hospitalCode), orgs.get(c.consultHospitalCode), c.status, c.reportStatus, start, c.patientName, c.sex, c.birthDate, c.experts, created, c.applicantMobile],
    );
    await q.query(
      `INSERT INTO consultation_log (consultation_id, consult_no, apply_hospital_id, consult_hospital_id, action, from_state, to_state, user_id, user_name, operate_time)
       VALUES ($1, $2, $3, $4, 'create', NULL, 1, $5, $6, $7)`,
      [rows[0].id, no, orgs.get(c.hospitalCode), orgs.get(c.consultHospitalCode), rows[0].applicant_id, rows[0].applicant_name, created],
    );
  }
}

/** Production first start: one region, one all-powerful role, one administrator. */
export async function seedAdmin(locked: Db, config: IdentityConfig, log: (msg: string) => void): Promise<boolean> {
  const { rows } = await locked.query<{ n: number }>('SELECT count(*)::int AS n FROM app_user');
  if (rows[0].n > 0) return false;
  if (!config.adminMobile || !config.adminPassword) {
    log('no user exists: set ADMIN_MOBILE and ADMIN_PASSWORD to create the first administrator');
    return false;
  }
  if (!PASSWORD_PATTERN.test(config.adminPassword)) throw new Error('ADMIN_PASSWORD must be 8-16 digits, letters or common symbols');
  const hash = await hashPassword(config.adminPassword);
  await locked.tx(async (q) => {
    const org = await q.query<{ id: number }>(
      `INSERT INTO org (code, name, kind) VALUES ('REGION', 'Regional image centre', 'region')
       ON CONFLICT (code) DO UPDATE SET code = excluded.code RETURNING id`,
    );
    const role = await q.query<{ id: number }>(
      `INSERT INTO role (name, explain, permissions, data_scope) VALUES ('Administrator', '', $1::jsonb, 'all')
       ON CONFLICT (name) DO UPDATE SET permissions = excluded.permissions RETURNING id`,
      [JSON.stringify(allPermissions())],
    );
    const user = await q.query<{ id: number }>(
      `INSERT INTO app_user (mobile, name, status, password_hash, password_weak) VALUES ($1, 'Administrator', 1, $2, $3) RETURNING id`,
      [config.adminMobile, hash, isWeakPassword(config.adminPassword!)],
    );
    await q.query('INSERT INTO user_membership (user_id, hospital_id, role_id) VALUES ($1, $2, $3)', [user.rows[0].id, org.rows[0].id, role.rows[0].id]);
  });
  return true;
}

async function insertOrgs(q: Queryable): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const org of DEMO_ORGS) {
    const parentId = org.parentCode ? ids.get(org.parentCode) : null;
    const { rows } = await q.query<{ id: number }>(
      `INSERT INTO org (code, name, kind, parent_id, contact_person, contact_phone, uploader_flag)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
      [org.code, org.name, org.kind, parentId, org.contactPerson, org.contactPhone, org.uploaderFlag],
    );
    ids.set(org.code, rows[0].id);
  }
  return ids;
}

export function expandGrants(grants: DemoRole['grants']): PermissionMap {
  if (grants['*']) return allPermissions();
  const out: PermissionMap = {};
  for (const [module, actions] of Object.entries(grants)) {
    if (!MODULES[module]) throw new Error(`demo role grants unknown module ${module}`);
    out[module] = actions === '*' ? [...MODULES[module]] : actions.filter((a) => MODULES[module].includes(a));
  }
  return out;
}

async function insertRole(q: Queryable, role: DemoRole, orgs: Map<string, number>): Promise<number> {
  const { rows } = await q.query<{ id: number }>(
    `INSERT INTO role (name, explain, permissions, data_scope, region_org_ids, remote_org_ids) VALUES ($1, $2, $3::jsonb, $4, $5::jsonb, $6::jsonb) RETURNING id`,
    [
      role.name,
      role.explain,
      JSON.stringify(expandGrants(role.grants)),
      role.dataScope,
      JSON.stringify((role.regionOrgCodes ?? []).map((c) => orgs.get(c))),
      JSON.stringify((role.remoteOrgCodes ?? []).map((c) => orgs.get(c))),
    ],
  );
  return rows[0].id;
}

/** Exam parts, devices, exam items, QC rules and reservation rules of the demo region (mock/baseData.ts). */
async function insertBaseData(q: Queryable, orgs: Map<string, number>, departments: Map<string, number>): Promise<void> {
  const organs = new Map<string, { id: number; bodyId: number }>();
  for (const [i, body] of DEMO_ORGANS.entries()) {
    const b = await q.query<{ id: number }>('INSERT INTO organ (code, name, sort) VALUES ($1, $2, $3) RETURNING id', [body.code, body.name, i]);
    for (const [j, [code, name]] of body.parts.entries()) {
      const o = await q.query<{ id: number }>('INSERT INTO organ (parent_id, code, name, sort) VALUES ($1, $2, $3, $4) RETURNING id', [b.rows[0].id, code, name, j]);
      organs.set(code, { id: o.rows[0].id, bodyId: b.rows[0].id });
    }
  }
  let deviceIndex = 0;
  for (const [orgCode, devices] of Object.entries(DEMO_DEVICES)) {
    const hospitalId = orgs.get(orgCode);
    for (const d of devices) {
      const { ip, port } = demoDeviceAddress(deviceIndex++);
      await q.query(
        `INSERT INTO device (hospital_id, department_id, name, model, modality, ip, port, location, ae_title)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [hospitalId, departments.get(`${orgCode}/${d.department}`), d.name, d.model, d.modality, ip, port, d.location, d.ae],
      );
    }
    // A hospital offers the items its devices can do.
    const modalities = new Set(devices.map((d) => d.modality));
    for (const item of DEMO_EXAM_ITEMS.filter((it) => modalities.has(it.modality))) {
      const organ = organs.get(item.organ);
      await q.query(
        'INSERT INTO exam_item (hospital_id, code, name, modality, body_id, organ_id, price) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [hospitalId, item.code, item.name, item.modality, organ?.bodyId, organ?.id, item.price],
      );
    }
  }
  for (const rule of DEMO_QC_RULES) {
    const { rows } = await q.query<{ id: number }>(
      'INSERT INTO qc_rule (name, description, type, time_limit_hours, modality, min_images, diseases) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id',
      [rule.name, rule.description, rule.type, rule.timeLimitHours ?? null, rule.modality ?? null, rule.minImages ?? null, rule.diseases ?? null],
    );
    for (const [seq, item] of rule.items.entries()) {
      await q.query('INSERT INTO qc_rule_item (rule_id, seq, name, score, deduction) VALUES ($1, $2, $3, $4, $5)', [rows[0].id, seq, item.name, item.score, item.deduction ?? null]);
    }
  }
  const deviceIds = new Map((await q.query<{ ae: string; id: number }>('SELECT ae_title AS ae, id FROM device')).rows.map((r) => [r.ae, r.id]));
  await insertRows(
    q,
    'schedule_rule',
    DEMO_SCHEDULE_RULES.map((r) => ({
      hospital_id: orgs.get(r.hospital),
      device_id: r.ae ? deviceIds.get(r.ae) : null,
      modality: r.modality ?? null,
      weekdays: r.weekdays,
      start_time: r.start,
      end_time: r.end,
      slot_minutes: r.minutes,
      capacity: r.capacity,
    })),
  );
}

/** Multi-row INSERT of `rows` (same keys) in chunks, so seeding a few hundred rows is a handful of statements. */
async function insertRows(q: Queryable, table: string, rows: Array<Record<string, unknown>>, returning?: string): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  if (!rows.length) return out;
  const names = Object.keys(rows[0]);
  for (let start = 0; start < rows.length; start += 100) {
    const chunk = rows.slice(start, start + 100);
    const params: unknown[] = [];
    const values = chunk.map((row) => `(${names.map((n) => `$${params.push(row[n])}`).join(', ')})`);
    const r = await q.query(`INSERT INTO ${table} (${names.join(', ')}) VALUES ${values.join(', ')}${returning ? ` RETURNING ${returning}` : ''}`, params);
    out.push(...r.rows);
  }
  return out;
}

/**
 * Demo exams (mock/exams.ts) as the registration API would have stored them: the
 * same numbering (formatExamCode/formatPatientId from a per hospital and day sequence,
 * handed out in registration order and left in exam_code_counter so the next API
 * registration continues after them), the same pinyin, age and worklist fields.
 * A bulk insert rather than one API call per exam keeps the first start fast.
 */
async function insertDemoExams(q: Queryable, now: Date): Promise<void> {
  const orgs = new Map((await q.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
  const devices = new Map(
    (await q.query<{ ae: string; id: number; name: string; modality: string }>('SELECT ae_title AS ae, id, name, modality FROM device')).rows.map((r) => [r.ae, r]),
  );
  const items = new Map(
    (
      await q.query<{ key: string; id: number; name: string; organ_id: number | null; organ_name: string | null; price: number }>(
        `SELECT i.hospital_id || '/' || i.code AS key, i.id, i.name, i.organ_id, o.name AS organ_name, i.price::float8 AS price
           FROM exam_item i LEFT JOIN organ o ON o.id = i.organ_id`,
      )
    ).rows.map((r) => [r.key, r]),
  );
  const clerks = new Map(
    (
      await q.query<{ hospital_id: number; id: number; name: string }>(
        `SELECT DISTINCT ON (m.hospital_id) m.hospital_id, u.id, u.name FROM user_membership m JOIN app_user u ON u.id = m.user_id
           JOIN role r ON r.id = m.role_id WHERE r.permissions -> 'registration' ? 'add' ORDER BY m.hospital_id, u.id`,
      )
    ).rows.map((r) => [r.hospital_id, r]),
  );
  const counters = new Map<string, number>();
  const next = (hospitalId: number, kind: 'exam' | 'patient', day: string) => {
    const key = `${hospitalId}/${kind}/${day}`;
    const n = (counters.get(key) ?? 0) + 1;
    counters.set(key, n);
    return n;
  };
  const exams = demoExams(now);
  const rows = exams.map((e) => {
    const hospitalId = orgs.get(e.hospital)!;
    const device = devices.get(e.deviceAe)!;
    const lines = e.itemCodes.map((code) => items.get(`${hospitalId}/${code}`)!);
    const day = dayKey(e.createdAt);
    // Exam codes are unique across the region (exam_code_region_counter), patient ids per hospital.
    const examCode = formatExamCode(day, next(0, 'exam', day));
    const { age, ageUnit } = ageFromBirthDate(e.birthDate, e.createdAt)!;
    const clerk = clerks.get(hospitalId);
    return {
      hospital_id: hospitalId,
      exam_code: examCode,
      study_uid: `2.25.${e.uidBits.toString(10)}`,
      his_patient_name: e.name,
      his_patient_name_en: pinyinName(e.name),
      his_no: e.hisNo,
      patient_id: formatPatientId(day, next(hospitalId, 'patient', day)),
      id_no: e.idNo,
      out_patient_no: e.outPatientNo ?? null,
      in_patient_no: e.inPatientNo ?? null,
      bed_no: e.bedNo ?? null,
      birth_date: e.birthDate,
      age,
      age_unit: ageUnit,
      sex: e.sex,
      phone: e.phone,
      credential_type: 1,
      credential_no: e.idNo,
      patient_source: e.patientSource,
      his_dept_name: e.hisDeptName,
      his_doctor_name: e.hisDoctorName,
      appointment: e.appointment,
      appoint_time: e.appointTime ?? null,
      arrived_at: e.arrivedAt ?? null,
      payment: e.payment,
      clinical_diagnosis: e.clinicalDiagnosis,
      device_id: device.id,
      device_name: device.name,
      register_type: 2,
      register_doctor_id: clerk?.id ?? null,
      register_doctor_name: clerk?.name ?? '登记处',
      item_names: lines.map((l) => l.name).join('、'),
      price: lines.reduce((sum, l) => sum + Math.round(l.price * 100), 0) / 100,
      exam_state: e.examState,
      state_before_termination: e.stateBeforeTermination ?? null,
      exam_time: e.examTime ?? null,
      hidden: e.hidden,
      scheduled_ae_title: e.deviceAe,
      modality: device.modality,
      scheduled_start: e.appointTime ?? e.createdAt,
      scheduled_step_id: examCode,
      requested_procedure_id: examCode,
      created_at: e.createdAt,
      updated_at: e.createdAt,
    };
  });
  const ids = await insertRows(q, 'exam', rows, 'id');
  const lineRows: Array<Record<string, unknown>> = [];
  const logRows: Array<Record<string, unknown>> = [];
  exams.forEach((e, i) => {
    const examId = ids[i].id;
    const row = rows[i];
    e.itemCodes.forEach((code, position) => {
      const item = items.get(`${row.hospital_id}/${code}`)!;
      lineRows.push({ exam_id: examId, position, item_id: item.id, item_name: item.name, organ_id: item.organ_id, organ_name: item.organ_name, price: item.price });
    });
    const log = (action: string, at: Date) =>
      logRows.push({ exam_id: examId, hospital_id: row.hospital_id, action, user_id: row.register_doctor_id, user_name: row.register_doctor_name, created_at: at, detail: JSON.stringify({ examCode: row.exam_code }) });
    log(e.appointment ? 'appointExam' : 'registerExam', e.createdAt);
    if (e.appointment && e.arrivedAt) log('checkIn', e.arrivedAt);
    if (e.examState === 3) log('suspend', new Date(Math.min(now.getTime(), e.createdAt.getTime() + 3600_000)));
    if (e.hidden) log('hideExam', new Date(Math.min(now.getTime(), e.createdAt.getTime() + 7200_000)));
  });
  await insertRows(q, 'exam_item_line', lineRows);
  await insertRows(q, 'exam_log', logRows);
  const counted = [...counters].map(([key, last]) => {
    const [hospitalId, kind, day] = key.split('/');
    return { hospital_id: Number(hospitalId), kind, day, last };
  });
  await insertRows(q, 'exam_code_counter', counted.filter((c) => c.kind === 'patient'));
  await insertRows(q, 'exam_code_region_counter', counted.filter((c) => c.kind === 'exam').map(({ day, last }) => ({ day, last })));
}

/** Examined demo exams that get images on first run, and studies left unmatched for the manual match. */
const DEMO_IMAGED_EXAMS = 16;
const DEMO_UNMATCHED_STUDIES = 3;

/**
 * Demo images, after the demo seed: small synthetic studies (mock/dicom.ts) of the
 * newest examined exams, put in through the archive like a modality's C-STORE (so they
 * match by accession number), and a few studies nobody registered, to match by hand.
 */
export async function seedDemoImages(db: Db, archive: Archive): Promise<void> {
  const { rows } = await db.query<{
    hospital_id: number; device_id: number; ae: string; exam_code: string; study_uid: string; patient_id: string; name: string; name_en: string | null;
    birth: string | null; sex: number; modality: string; day: string; item_names: string;
  }>(
    `SELECT e.hospital_id, e.device_id, d.ae_title AS ae, e.exam_code, e.study_uid, e.patient_id, e.his_patient_name AS name,
            e.his_patient_name_en AS name_en, to_char(e.birth_date, 'YYYYMMDD') AS birth, e.sex, d.modality,
            to_char(e.exam_time AT TIME ZONE $2, 'YYYYMMDD') AS day, e.item_names
       FROM exam e JOIN device d ON d.id = e.device_id
      WHERE e.exam_state = 2 AND d.modality IN ('CT', 'MR', 'DX', 'MG', 'US') AND NOT e.hidden
      ORDER BY e.exam_time DESC LIMIT $1`,
    [DEMO_IMAGED_EXAMS + DEMO_UNMATCHED_STUDIES, REGION_TIME_ZONE],
  );
  for (const [i, e] of rows.entries()) {
    const unmatched = i >= DEMO_IMAGED_EXAMS;
    // The last unmatched one carries its exam's code and patient id but another sex: the
    // matching policy keeps it on the review queue, with that field as the reason.
    const review = i === rows.length - 1 && unmatched;
    const series = syntheticSeries({
      uidRoot: `1.2.826.0.1.3680043.10.1082.9.${i + 1}`,
      // The other unmatched ones carry no accession number and another patient id: a study from an unregistered patient.
      studyUid: unmatched ? undefined : e.study_uid,
      accessionNumber: unmatched && !review ? '' : e.exam_code,
      patientId: unmatched && !review ? `EXT${e.patient_id.slice(-6)}` : e.patient_id,
      patientName: e.name,
      patientNameEn: e.name_en ?? undefined,
      birthDate: e.birth ?? undefined,
      sex: review ? (e.sex === 1 ? 'F' : 'M') : e.sex === 1 ? 'M' : e.sex === 2 ? 'F' : 'O',
      modality: e.modality as 'CT',
      studyDate: e.day,
      studyDescription: e.item_names.slice(0, 64),
      count: e.modality === 'CT' || e.modality === 'MR' ? 3 : 1,
      rows: 128,
      columns: 128,
    });
    let stored: IngestResult | undefined;
    for (const inst of series.instances) stored = await archive.storeBuffer(inst.bytes, { hospitalId: e.hospital_id, deviceId: e.device_id, sender: e.ae });
    // The demo's reports were written on these images: link them even where the report
    // is already past the point where a new link would be allowed.
    if (!unmatched && stored && !stored.examId) {
      await db.tx(async (q) => {
        const exam = (
          await q.query<{ id: number; hospital_id: number; exam_code: string; report_state: number; sent_to_superior: boolean }>(
            'SELECT id, hospital_id, exam_code, report_state, sent_to_superior FROM exam WHERE hospital_id = $1 AND exam_code = $2',
            [e.hospital_id, e.exam_code],
          )
        ).rows[0];
        await linkStudy(q, stored!.studyId, series.studyUid, exam, 'accession', { userId: null, name: e.ae });
      });
    }
  }
}
