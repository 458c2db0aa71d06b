/**
 * The consultation report's printed sheet: the applying hospital's print layout
 * (server/report/printLayouts.ts, the same as its imaging reports), filled from the
 * consultation — the patient, the consultation number where the layout shows an exam
 * code, the findings and opinion as the report's findings and diagnosis, the writing
 * expert and the reviewer. The client lays it out with the report sheet
 * (src/report/print). Only an approved report prints (canPrint); the sheet shows to
 * whoever may read the consultation. Reads consultation and print_layout.
 */
import type { Queryable } from '../db';
import type { AuthContext } from '../identity/sessions';
import { hospitalLayout } from '../report/printLayouts';
import type { PrintSheet } from '../../src/shared/printSheet';
import { consultationRow } from './domain';

const APPROVED = 4;

export async function consultSheet(q: Queryable, id: number, me: AuthContext): Promise<PrintSheet> {
  const row = await consultationRow(q, id, me);
  const layout = await hospitalLayout(q, row.apply_hospital_id);
  const { rows } = await q.query<{ hospitalName: string; sex: number | null; author: string | null; reviewer: string | null; at: Date }>(
    `SELECT o.name AS "hospitalName", c.sex, c.report_author_name AS "author", c.report_reviewer_name AS "reviewer", c.updated_at AS "at"
       FROM consultation c JOIN org o ON o.id = c.apply_hospital_id WHERE c.id = $1`,
    [id],
  );
  const r = rows[0];
  return {
    layout,
    report: { id: row.id, reportState: row.report_status, version: row.version, printNumber: 0, reportPrintState: 0, hospitalName: r.hospitalName, canPrint: row.report_status === APPROVED },
    values: {
      examCode: row.consult_no,
      patientName: row.patient_name,
      sex: r.sex,
      see: row.report_findings,
      diagnosis: row.report_opinion,
      firstTrialDoctorName: r.author,
      retrialDoctorName: r.reviewer,
      firstTrialTime: r.at.toISOString(),
      notes: layout.notes ?? null,
    },
    signatures: {},
  };
}
