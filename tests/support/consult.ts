/**
 * A consultation about to start (state 5, approved and not started) between a doctor
 * who applied and the experts invited, written straight into the database: what the
 * video room's tests start from (the application and its review have their own tests,
 * tests/api/consult.test.ts and tests/browser/consult.test.ts). Experts are the demo
 * experts linked to the given users' accounts (mock/consult.ts).
 */
import type { Queryable } from '../../server/db';

export async function approvedConsultation(db: Queryable, applicantMobile: string, expertMobiles: string[], status = 5): Promise<number> {
  const applicant = (
    await db.query<{ id: number; name: string; hospital_id: number }>(
      `SELECT u.id, u.name, m.hospital_id FROM app_user u JOIN user_membership m ON m.user_id = u.id WHERE u.mobile = $1 ORDER BY m.position, m.hospital_id LIMIT 1`,
      [applicantMobile],
    )
  ).rows[0];
  const experts = (
    await db.query<{ id: number; hospital_id: number }>('SELECT e.id, e.hospital_id FROM expert e JOIN app_user u ON u.id = e.user_id WHERE u.mobile = ANY($1)', [expertMobiles])
  ).rows;
  if (!applicant || experts.length !== expertMobiles.length) throw new Error(`no demo applicant ${applicantMobile} or linked experts ${expertMobiles.join(', ')}`);
  const no = `VT${Date.now()}${Math.floor(Math.random() * 1000)}`;
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO consultation (consult_no, title, apply_hospital_id, consult_hospital_id, applicant_id, applicant_name, status, start_time, end_time, topic, patient_name, birth_date, expert_ids)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now() + interval '1 hour', now() + interval '2 hours', $2, '张三', '1965-01-01', $8) RETURNING id`,
    [no, `视频会诊 ${no}`, applicant.hospital_id, experts[0].hospital_id, applicant.id, applicant.name, status, experts.map((e) => e.id)],
  );
  return rows[0].id;
}
