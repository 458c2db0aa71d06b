-- Report-work rollup (issue #21, speed): the workload, doctor report and own turnaround
-- statistics of whole local days read per-day (and per-month) sums of the report work
-- instead of every report of the range, as migration 0037 does for the exams. Kept
-- current in the writing transaction by statement-level triggers on report and exam;
-- filled below for existing data.
--
-- A row mirrors the `reportWork` source of server/stats/sources.ts (a report unfolded
-- into the work written, reviewed and rechecked, each with its doctor and time) and
-- its `rollup` declaration names these columns; tests/api/statsRollup.test.ts compares
-- every answer it gives with the indexed path.
--
-- Key: grain ('d' a local day, 'm' the month starting on `day`) × the exam's hospital
-- and modality × doctor (the id and the name the report carries: the statistics label
-- a doctor with the name's max, which a sum cannot undo, so each name is its own row)
-- × kind of work; the hours from the exam to the work in stat_rollup_bin's fixed bins
-- (stat_hours_bin), keyed alike but for the name, a field per kind of work.

CREATE TABLE IF NOT EXISTS stat_work_rollup (
  grain "char" NOT NULL,
  day date NOT NULL,
  hospital_id integer NOT NULL,
  modality text NOT NULL,
  doctor_id integer,
  doctor_name text,
  work text NOT NULL,
  n integer NOT NULL DEFAULT 0,
  -- Of these, the report marked positive (the positive findings written).
  positive integer NOT NULL DEFAULT 0,
  -- The exams' workload weights (exam.work_weight), summed.
  weight numeric(16, 2) NOT NULL DEFAULT 0,
  CONSTRAINT stat_work_rollup_key UNIQUE NULLS NOT DISTINCT (grain, day, hospital_id, modality, doctor_id, doctor_name, work)
);

-- Field 1 written, 2 reviewed, 3 rechecked: the `bins` of the reportWork rollup declaration.
CREATE TABLE IF NOT EXISTS stat_work_rollup_bin (
  grain "char" NOT NULL,
  day date NOT NULL,
  hospital_id integer NOT NULL,
  modality text NOT NULL,
  doctor_id integer,
  field smallint NOT NULL,
  bin integer NOT NULL,
  n integer NOT NULL DEFAULT 0,
  CONSTRAINT stat_work_rollup_bin_key UNIQUE NULLS NOT DISTINCT (grain, day, hospital_id, modality, doctor_id, field, bin)
);

-- One's own work (a view's `self` filter, myTurnaround) reads one doctor's rows, not the region's.
CREATE INDEX IF NOT EXISTS stat_work_rollup_doctor ON stat_work_rollup (doctor_id, grain, day);
CREATE INDEX IF NOT EXISTS stat_work_rollup_bin_doctor ON stat_work_rollup_bin (doctor_id, grain, day);

-- The upsert adding `src`'s rows (sgn ±1, the exam's and the report's columns) to the
-- rollup. Text, so the triggers can EXECUTE it over their transition tables.
CREATE OR REPLACE FUNCTION stat_work_rollup_sql(src text) RETURNS text
LANGUAGE sql IMMUTABLE AS $f$
  SELECT format($q$
    WITH c AS (%s),
    k AS (
      SELECT c.sgn, c.hospital_id, coalesce(c.modality, '') AS modality, c.work_weight, c.positive, w.work, w.doctor_id, w.doctor_name,
             g.grain, stat_rollup_day(w.done_at, g.grain) AS day
        FROM c
       CROSS JOIN LATERAL (VALUES ('write', c.writer_id, c.writer_name, c.first_trial_time),
                                  ('review', c.reviewer_id, c.reviewer_name, c.retrial_time),
                                  ('recheck', c.recheck_doctor_id, c.recheck_doctor_name, c.recheck_time)) w (work, doctor_id, doctor_name, done_at)
       CROSS JOIN (VALUES ('d'::"char"), ('m'::"char")) g (grain)
       WHERE NOT c.hidden AND w.done_at IS NOT NULL)
    INSERT INTO stat_work_rollup AS u (grain, day, hospital_id, modality, doctor_id, doctor_name, work, n, positive, weight)
    SELECT grain, day, hospital_id, modality, doctor_id, doctor_name, work,
           sum(sgn), sum(CASE WHEN positive THEN sgn ELSE 0 END), sum(sgn * work_weight)
      FROM k
     GROUP BY 1, 2, 3, 4, 5, 6, 7
    HAVING sum(sgn) <> 0 OR sum(sgn * work_weight) <> 0 OR sum(CASE WHEN positive THEN sgn ELSE 0 END) <> 0
     ORDER BY 1, 2, 3, 4, 5, 6, 7
    ON CONFLICT ON CONSTRAINT stat_work_rollup_key DO UPDATE
       SET n = u.n + excluded.n, positive = u.positive + excluded.positive, weight = u.weight + excluded.weight$q$, src)
$f$;

-- The hours as the reportWork source's `hours` field: from the exam (its exam time, else its registration).
CREATE OR REPLACE FUNCTION stat_work_rollup_bin_sql(src text) RETURNS text
LANGUAGE sql IMMUTABLE AS $f$
  SELECT format($q$
    WITH c AS (%s),
    k AS (
      SELECT c.sgn, c.hospital_id, coalesce(c.modality, '') AS modality, w.field, w.doctor_id, g.grain, stat_rollup_day(w.done_at, g.grain) AS day,
             stat_hours_bin(EXTRACT(EPOCH FROM (w.done_at - coalesce(c.exam_time, c.created_at))) / 3600) AS bin
        FROM c
       CROSS JOIN LATERAL (VALUES (1::smallint, c.writer_id, c.first_trial_time), (2::smallint, c.reviewer_id, c.retrial_time),
                                  (3::smallint, c.recheck_doctor_id, c.recheck_time)) w (field, doctor_id, done_at)
       CROSS JOIN (VALUES ('d'::"char"), ('m'::"char")) g (grain)
       WHERE NOT c.hidden AND w.done_at IS NOT NULL AND coalesce(c.exam_time, c.created_at) IS NOT NULL)
    INSERT INTO stat_work_rollup_bin AS b (grain, day, hospital_id, modality, doctor_id, field, bin, n)
    SELECT grain, day, hospital_id, modality, doctor_id, field, bin, sum(sgn)
      FROM k
     GROUP BY 1, 2, 3, 4, 5, 6, 7
    HAVING sum(sgn) <> 0
     ORDER BY 1, 2, 3, 4, 5, 6, 7
    ON CONFLICT ON CONSTRAINT stat_work_rollup_bin_key DO UPDATE SET n = b.n + excluded.n$q$, src)
$f$;

-- The rows a statement changed, as ±1 contributions: the old one out, the new one in.
-- Exam deletion is per row before the delete (its report goes with it by the cascade,
-- when the exam can no longer be joined).
CREATE OR REPLACE FUNCTION stat_work_rollup_sync() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  ecols text := 'e.hidden, e.hospital_id, e.modality, e.work_weight, e.exam_time, e.created_at';
  rcols text := 'r.writer_id, r.writer_name, r.first_trial_time, r.reviewer_id, r.reviewer_name, r.retrial_time,
                 r.recheck_doctor_id, r.recheck_doctor_name, r.recheck_time, r.positive';
  src text;
BEGIN
  IF TG_TABLE_NAME = 'exam' THEN
    -- An exam without a report has no work: an insert adds none; most updates touch no counted column.
    IF NOT EXISTS (SELECT 1 FROM stat_old o JOIN stat_new n ON n.id = o.id
                    WHERE (o.hidden, o.hospital_id, o.modality, o.work_weight, o.exam_time, o.created_at)
                          IS DISTINCT FROM (n.hidden, n.hospital_id, n.modality, n.work_weight, n.exam_time, n.created_at)) THEN
      RETURN NULL;
    END IF;
    src := format('SELECT -1 AS sgn, %1$s, %2$s FROM stat_old e JOIN report r ON r.id = e.id
                   UNION ALL SELECT 1, %1$s, %2$s FROM stat_new e JOIN report r ON r.id = e.id', ecols, rcols);
  ELSIF TG_OP = 'INSERT' THEN
    src := format('SELECT 1 AS sgn, %s, %s FROM stat_new r JOIN exam e ON e.id = r.id', ecols, rcols);
  ELSIF TG_OP = 'DELETE' THEN
    src := format('SELECT -1 AS sgn, %s, %s FROM stat_old r JOIN exam e ON e.id = r.id', ecols, rcols);
  ELSE
    IF NOT EXISTS (SELECT 1 FROM stat_old o JOIN stat_new n ON n.id = o.id
                    WHERE (o.writer_id, o.writer_name, o.first_trial_time, o.reviewer_id, o.reviewer_name, o.retrial_time,
                           o.recheck_doctor_id, o.recheck_doctor_name, o.recheck_time, o.positive)
                          IS DISTINCT FROM
                          (n.writer_id, n.writer_name, n.first_trial_time, n.reviewer_id, n.reviewer_name, n.retrial_time,
                           n.recheck_doctor_id, n.recheck_doctor_name, n.recheck_time, n.positive)) THEN
      RETURN NULL;
    END IF;
    src := format('SELECT -1 AS sgn, %1$s, %2$s FROM stat_old r JOIN exam e ON e.id = r.id
                   UNION ALL SELECT 1, %1$s, %2$s FROM stat_new r JOIN exam e ON e.id = r.id', ecols, rcols);
  END IF;
  EXECUTE stat_work_rollup_sql(src);
  EXECUTE stat_work_rollup_bin_sql(src);
  RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION stat_work_rollup_exam_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  src text := format(
    'SELECT -1 AS sgn, e.hidden, e.hospital_id, e.modality, e.work_weight, e.exam_time, e.created_at, r.writer_id, r.writer_name, r.first_trial_time,
            r.reviewer_id, r.reviewer_name, r.retrial_time, r.recheck_doctor_id, r.recheck_doctor_name, r.recheck_time, r.positive
       FROM exam e JOIN report r ON r.id = e.id WHERE e.id = %s', OLD.id);
BEGIN
  EXECUTE stat_work_rollup_sql(src);
  EXECUTE stat_work_rollup_bin_sql(src);
  RETURN OLD;
END;
$$;

-- Transition tables allow one event per trigger. An exam insert has no report yet.
DROP TRIGGER IF EXISTS stat_work_rollup_exam_update ON exam;
CREATE TRIGGER stat_work_rollup_exam_update AFTER UPDATE ON exam REFERENCING OLD TABLE AS stat_old NEW TABLE AS stat_new FOR EACH STATEMENT EXECUTE FUNCTION stat_work_rollup_sync();
DROP TRIGGER IF EXISTS stat_work_rollup_exam_delete ON exam;
CREATE TRIGGER stat_work_rollup_exam_delete BEFORE DELETE ON exam FOR EACH ROW EXECUTE FUNCTION stat_work_rollup_exam_delete();
DROP TRIGGER IF EXISTS stat_work_rollup_report_insert ON report;
CREATE TRIGGER stat_work_rollup_report_insert AFTER INSERT ON report REFERENCING NEW TABLE AS stat_new FOR EACH STATEMENT EXECUTE FUNCTION stat_work_rollup_sync();
DROP TRIGGER IF EXISTS stat_work_rollup_report_update ON report;
CREATE TRIGGER stat_work_rollup_report_update AFTER UPDATE ON report REFERENCING OLD TABLE AS stat_old NEW TABLE AS stat_new FOR EACH STATEMENT EXECUTE FUNCTION stat_work_rollup_sync();
DROP TRIGGER IF EXISTS stat_work_rollup_report_delete ON report;
CREATE TRIGGER stat_work_rollup_report_delete AFTER DELETE ON report REFERENCING OLD TABLE AS stat_old FOR EACH STATEMENT EXECUTE FUNCTION stat_work_rollup_sync();

-- Existing data, once.
TRUNCATE stat_work_rollup, stat_work_rollup_bin;
DO $$
DECLARE
  src text := 'SELECT 1 AS sgn, e.hidden, e.hospital_id, e.modality, e.work_weight, e.exam_time, e.created_at, r.writer_id, r.writer_name,
                      r.first_trial_time, r.reviewer_id, r.reviewer_name, r.retrial_time, r.recheck_doctor_id, r.recheck_doctor_name,
                      r.recheck_time, r.positive
                 FROM report r JOIN exam e ON e.id = r.id';
BEGIN
  EXECUTE stat_work_rollup_sql(src);
  EXECUTE stat_work_rollup_bin_sql(src);
END;
$$;
