/**
 * What one printed report shows: its hospital's layout (./printLayouts.ts), the values
 * of the layout's items taken from the report and its exam (masked as every patient
 * row is under grade safety), and the doctors' signature pictures where the layout
 * signs with pictures and the doctor's signature is active. The client lays the A4
 * sheet out from this; printing itself is the workflow action `print`. Also the
 * store of the signatures' active flags. Reads exam, exam_item_line, device, report
 * (through the engine's row), app_user and the file storage; writes print_signature.
 */
import { buffer } from 'node:stream/consumers';
import type { Queryable } from '../db';
import { hasPermission } from '../identity/access';
import type { AuthContext } from '../identity/sessions';
import { scopeSql } from '../identity/scope';
import { AppError } from '../lib/errors';
import type { ListSpec } from '../lib/list';
import type { FileStorage } from '../storage';
import { rowMasker } from '../identity/gradeSafety';
import { allowedActions, modeOf, type ReportRow } from './engine';
import { hospitalLayout, type PrintLayout } from './printLayouts';
import { SIGNED_ITEMS, type PrintSheet, type SheetSignature, type SignedItem } from '../../src/shared/printSheet';

/** The report columns of the doctor items that may sign with a picture. */
const SIGNERS: Record<SignedItem, { user: 'writer_id' | 'reviewer_id'; name: 'writer_name' | 'reviewer_name' }> = {
  firstTrialDoctorName: { user: 'writer_id', name: 'writer_name' },
  retrialDoctorName: { user: 'reviewer_id', name: 'reviewer_name' },
};

/**
 * Who may see the printed sheet (the print preview): whoever may view the report in
 * the module they work on it in, or print it; an assignee with myReport:view.
 */
export function assertMayPreview(report: ReportRow, me: AuthContext): void {
  const module = modeOf(report, me) === 'remote' ? 'remote' : 'report';
  if (hasPermission(me.permissions, `${module}:view`) || hasPermission(me.permissions, `${module}:print`)) return;
  if (report.assignees.some((a) => a.userId === me.userId) && hasPermission(me.permissions, 'myReport:view')) return;
  throw new AppError('UAA103');
}

async function signaturesOf(q: Queryable, storage: FileStorage, report: ReportRow, layout: PrintLayout): Promise<PrintSheet['signatures']> {
  const ids = Object.values(SIGNERS)
    .map((s) => report[s.user])
    .filter((id): id is number => id !== null);
  const { rows } = await q.query<{ id: number; key: string | null; active: boolean }>(
    'SELECT u.id, u.signature_key AS key, coalesce(s.active, true) AS active FROM app_user u LEFT JOIN print_signature s ON s.user_id = u.id WHERE u.id = ANY($1::int[])',
    [ids],
  );
  const out: PrintSheet['signatures'] = {};
  for (const [item, s] of Object.entries(SIGNERS) as Array<[SignedItem, (typeof SIGNERS)[SignedItem]]>) {
    const user = rows.find((r) => r.id === report[s.user]);
    if (!user) continue;
    const active = Boolean(user.key) && user.active;
    const signature: SheetSignature = { name: report[s.name], active };
    if (active && layout[SIGNED_ITEMS[item]]) {
      const bytes = await buffer(await storage.get(user.key!)).catch(() => undefined);
      // A picture gone from storage prints the typed name rather than failing the print.
      if (bytes) signature.image = `data:image/${user.key!.endsWith('.png') ? 'png' : 'jpeg'};base64,${bytes.toString('base64')}`;
    }
    out[item] = signature;
  }
  return out;
}

/** The sheet of `report` for the caller; REPORT301 when its hospital has no layout. */
export async function printSheet(q: Queryable, storage: FileStorage, report: ReportRow, me: AuthContext): Promise<PrintSheet> {
  const layout = await hospitalLayout(q, report.exam_hospital_id);
  // Exam times come as Dates: the reply's serializer writes them as the ISO strings the schema declares.
  const { rows } = await q.query<PrintSheet['values'] & { hisPatientName: string | null }>(
    `SELECT e.device_name AS "deviceName", e.modality, e.exam_code AS "examCode", e.patient_id AS "patientId",
            e.his_patient_name AS "hisPatientName", e.sex, e.age, e.age_unit AS "ageUnit", e.exam_time AS "examTime",
            e.his_dept_name AS "deptName", d.location AS "roomNo", e.in_patient_no AS "inPatientNo", e.out_patient_no AS "outPatientNo",
            (SELECT string_agg(x.organ_name, '、' ORDER BY x.at) FROM (
               SELECT l.organ_name, min(l.position) AS at FROM exam_item_line l WHERE l.exam_id = e.id AND l.organ_name IS NOT NULL GROUP BY l.organ_name) x) AS "organName",
            e.item_names AS "itemName"
       FROM exam e LEFT JOIN device d ON d.id = e.device_id WHERE e.id = $1`,
    [report.id],
  );
  const mask = await rowMasker(q, me);
  const { hisPatientName, ...exam } = mask(rows[0]);
  return {
    layout,
    report: {
      id: report.id,
      reportState: report.report_state,
      version: report.version,
      printNumber: report.print_number,
      reportPrintState: report.print_state,
      hospitalName: report.exam_hospital_name,
      canPrint: allowedActions(report, me).includes('print'),
    },
    values: {
      ...exam,
      patientName: hisPatientName,
      see: report.see,
      diagnosis: report.diagnosis,
      firstTrialDoctorName: report.writer_name,
      retrialDoctorName: report.reviewer_name,
      firstTrialTime: report.first_trial_time?.toISOString() ?? null,
      notes: layout.notes ?? null,
    },
    signatures: await signaturesOf(q, storage, report, layout),
  };
}

// Signatures of the doctors in the caller's scope: the users with a picture uploaded.
const SIGNATURE_SCOPE = { hospitalSql: (p: string) => `EXISTS (SELECT 1 FROM user_membership m WHERE m.user_id = u.id AND m.hospital_id = ANY(${p}))` };
const SIGNATURE_SELECT = `u.id, u.name, (u.signature_key IS NOT NULL) AS "hasSignature", coalesce(s.active, true) AS active,
  (SELECT string_agg(o.name, '、' ORDER BY m.position, o.id) FROM user_membership m JOIN org o ON o.id = m.hospital_id WHERE m.user_id = u.id) AS "hospitalNames"`;
const SIGNATURE_FROM = 'app_user u LEFT JOIN print_signature s ON s.user_id = u.id';

export const signatureListSpec: ListSpec = {
  from: SIGNATURE_FROM,
  select: SIGNATURE_SELECT,
  columns: { name: 'u.name', active: 'coalesce(s.active, true)' },
  filters: { name: 'like', active: 'eq' },
  defaultSort: 'u.name, u.id',
  scope: SIGNATURE_SCOPE,
  where: 'u.signature_key IS NOT NULL',
};

export async function getSignature(q: Queryable, id: number, me: AuthContext): Promise<Record<string, unknown> | undefined> {
  const params: unknown[] = [id];
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT ${SIGNATURE_SELECT} FROM ${SIGNATURE_FROM} WHERE u.id = $1 AND ${signatureListSpec.where} AND ${scopeSql(me.scope, SIGNATURE_SCOPE, params)}`,
    params,
  );
  return rows[0];
}

/** The storage key of the signature picture of a doctor in the caller's scope. */
export async function signatureKey(q: Queryable, id: number, me: AuthContext): Promise<string | undefined> {
  const params: unknown[] = [id];
  const { rows } = await q.query<{ key: string }>(
    `SELECT u.signature_key AS key FROM app_user u WHERE u.id = $1 AND u.signature_key IS NOT NULL AND ${scopeSql(me.scope, SIGNATURE_SCOPE, params)}`,
    params,
  );
  return rows[0]?.key;
}

export async function saveSignature(q: Queryable, id: number, active: boolean): Promise<void> {
  await q.query(
    `INSERT INTO print_signature (user_id, active) VALUES ($1, $2)
     ON CONFLICT (user_id) DO UPDATE SET active = excluded.active, updated_at = now()`,
    [id, active],
  );
}
