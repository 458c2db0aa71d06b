-- Statistics rollups (issue #21, speed): the exam statistics of whole local days read
-- per-day (and per-month) sums instead of every exam of the range. Kept current in
-- the writing transaction by statement-level triggers on exam and report (one
-- set-based pass per statement, so the bench's INSERT … SELECT of a million exams
-- builds them too); filled below for existing data.
--
-- What a row holds mirrors the `exam` source of server/stats/sources.ts (its
-- conditions, its price and its hours fields) and its `rollup` declaration names these
-- columns; tests/api/statsRollup.test.ts compares every answer the rollup can give
-- with the indexed path, so the two cannot drift apart unnoticed.
--
-- Key: grain ('d' a local day of Asia/Shanghai, the region's zone as the statistics
-- group days; 'm' the month starting on `day`) × hospital × modality × patient source
-- × sex × age band (the cockpit's patient profile bands); the histograms without the
-- last two.

CREATE TABLE IF NOT EXISTS stat_rollup (
  grain "char" NOT NULL,
  day date NOT NULL,
  hospital_id integer NOT NULL,
  modality text NOT NULL,
  patient_source smallint NOT NULL,
  sex smallint NOT NULL,
  age_band text NOT NULL,
  exams integer NOT NULL DEFAULT 0,
  examined integer NOT NULL DEFAULT 0,
  with_images integer NOT NULL DEFAULT 0,
  reported integer NOT NULL DEFAULT 0,
  approved integer NOT NULL DEFAULT 0,
  approved_in_limit integer NOT NULL DEFAULT 0,
  -- Not approved: whether such an exam is already "due" depends on the clock (the
  -- reader counts whole spans past the limit, and the one span the limit cuts exactly).
  unapproved integer NOT NULL DEFAULT 0,
  by_superior integer NOT NULL DEFAULT 0,
  positive integer NOT NULL DEFAULT 0,
  arrived integer NOT NULL DEFAULT 0,
  not_arrived integer NOT NULL DEFAULT 0,
  terminated integer NOT NULL DEFAULT 0,
  price numeric(16, 2) NOT NULL DEFAULT 0,
  PRIMARY KEY (grain, day, hospital_id, modality, patient_source, sex, age_band)
);

-- Fixed-bin histograms of the hours fields, so medians and P90s come from the bins:
-- quarter hours below 72 h, whole hours from there (stat_hours_bin).
-- Keyed as stat_rollup (its columns taken from there) but for sex and age band, then the
-- field and its bin: a percentile by sex or age band goes the indexed path, and every
-- histogram is that many times fewer rows (the cockpit's patient profile counts only).
CREATE TABLE IF NOT EXISTS stat_rollup_bin AS
  SELECT grain, day, hospital_id, modality, patient_source, 0::smallint AS field, 0 AS bin, 0 AS n FROM stat_rollup WITH NO DATA;
ALTER TABLE stat_rollup_bin ALTER COLUMN n SET NOT NULL, ALTER COLUMN n SET DEFAULT 0;
ALTER TABLE stat_rollup_bin ADD PRIMARY KEY (grain, day, hospital_id, modality, patient_source, field, bin);

-- A row's key from the exam's registration and age: its local day or month, its age band.
CREATE OR REPLACE FUNCTION stat_rollup_day(at timestamptz, grain "char") RETURNS date
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE grain WHEN 'd' THEN (at AT TIME ZONE 'Asia/Shanghai')::date ELSE date_trunc('month', at AT TIME ZONE 'Asia/Shanghai')::date END
$$;
CREATE OR REPLACE FUNCTION stat_age_band(age smallint, age_unit smallint) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN age_unit <> 4 OR age < 15 THEN '0-14' WHEN age < 45 THEN '15-44' WHEN age < 65 THEN '45-64' ELSE '65+' END
$$;

CREATE OR REPLACE FUNCTION stat_hours_bin(h numeric) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN h < 72 THEN floor(h * 4)::int ELSE 288 + floor(h - 72)::int END
$$;

-- The middle of a bin, in hours (what a percentile reads for every value in it).
CREATE OR REPLACE FUNCTION stat_bin_mid(b integer) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN b < 288 THEN (b + 0.5) / 4.0 ELSE 72 + (b - 288) + 0.5 END
$$;

-- The upserts adding `src`'s rows (sgn ±1, the exam's columns, the report's three)
-- to the rollup and to the bins. Text, so the triggers can EXECUTE them over their
-- transition tables, and the backfill over the tables themselves.
CREATE OR REPLACE FUNCTION stat_rollup_sql(src text) RETURNS text
LANGUAGE sql IMMUTABLE AS $f$
  SELECT format($q$
    WITH c AS (%s),
    k AS (
      SELECT c.*, g.grain, stat_rollup_day(c.created_at, g.grain) AS day, stat_age_band(c.age, c.age_unit) AS band
        FROM c CROSS JOIN (VALUES ('d'::"char"), ('m'::"char")) g (grain)
       WHERE NOT c.hidden)
    INSERT INTO stat_rollup AS u (grain, day, hospital_id, modality, patient_source, sex, age_band, exams, examined, with_images, reported,
                                  approved, approved_in_limit, unapproved, by_superior, positive, arrived, not_arrived, terminated, price)
    SELECT grain, day, hospital_id, coalesce(modality, ''), patient_source, sex, band,
           sum(sgn),
           sum(CASE WHEN exam_state = 2 THEN sgn ELSE 0 END),
           sum(CASE WHEN image_status = 1 THEN sgn ELSE 0 END),
           sum(CASE WHEN first_trial_time IS NOT NULL THEN sgn ELSE 0 END),
           sum(CASE WHEN retrial_time IS NOT NULL THEN sgn ELSE 0 END),
           sum(CASE WHEN retrial_time <= created_at + interval '24 hours' THEN sgn ELSE 0 END),
           sum(CASE WHEN retrial_time IS NULL THEN sgn ELSE 0 END),
           sum(CASE WHEN sent_to_superior THEN sgn ELSE 0 END),
           sum(CASE WHEN positive THEN sgn ELSE 0 END),
           sum(CASE WHEN arrived_at IS NOT NULL THEN sgn ELSE 0 END),
           sum(CASE WHEN arrived_at IS NULL AND exam_state <> 3 THEN sgn ELSE 0 END),
           sum(CASE WHEN exam_state = 3 THEN sgn ELSE 0 END),
           sum(sgn * price)
      FROM k
     GROUP BY 1, 2, 3, 4, 5, 6, 7
     ORDER BY 1, 2, 3, 4, 5, 6, 7
    ON CONFLICT (grain, day, hospital_id, modality, patient_source, sex, age_band) DO UPDATE SET %s$q$,
    src,
    -- Every sum adds up: its column plus the statement's.
    (SELECT string_agg(format('%1$I = u.%1$I + excluded.%1$I', c), ', ')
       FROM unnest(ARRAY['exams', 'examined', 'with_images', 'reported', 'approved', 'approved_in_limit', 'unapproved', 'by_superior',
                         'positive', 'arrived', 'not_arrived', 'terminated', 'price']) c))
$f$;

-- Field numbers: the `bins` of the exam source's rollup declaration (server/stats/sources.ts).
CREATE OR REPLACE FUNCTION stat_rollup_bin_sql(src text) RETURNS text
LANGUAGE sql IMMUTABLE AS $f$
  SELECT format($q$
    WITH c AS (%s),
    k AS (
      SELECT c.sgn, c.hospital_id, c.modality, c.patient_source, g.grain, h.field, stat_hours_bin(h.v) AS bin,
             stat_rollup_day(c.created_at, g.grain) AS day
        FROM c
       CROSS JOIN LATERAL (VALUES
         (1::smallint, EXTRACT(EPOCH FROM (c.first_trial_time - c.created_at)) / 3600),
         (2::smallint, EXTRACT(EPOCH FROM (c.exam_time - c.created_at)) / 3600),
         (3::smallint, EXTRACT(EPOCH FROM (c.images_at - c.exam_time)) / 3600),
         (4::smallint, EXTRACT(EPOCH FROM (c.first_trial_time - c.images_at)) / 3600),
         (5::smallint, EXTRACT(EPOCH FROM (c.retrial_time - c.first_trial_time)) / 3600),
         (6::smallint, EXTRACT(EPOCH FROM (c.retrial_time - c.created_at)) / 3600)) h (field, v)
       CROSS JOIN (VALUES ('d'::"char"), ('m'::"char")) g (grain)
       WHERE NOT c.hidden AND h.v IS NOT NULL)
    INSERT INTO stat_rollup_bin AS b (grain, day, hospital_id, modality, patient_source, field, bin, n)
    SELECT grain, day, hospital_id, coalesce(modality, ''), patient_source, field, bin, sum(sgn)
      FROM k
     GROUP BY 1, 2, 3, 4, 5, 6, 7
    HAVING sum(sgn) <> 0
     ORDER BY 1, 2, 3, 4, 5, 6, 7
    ON CONFLICT (grain, day, hospital_id, modality, patient_source, field, bin) DO UPDATE SET n = b.n + excluded.n$q$, src)
$f$;

-- The rows a statement changed, as ±1 contributions: the old one out, the new one in.
-- A report change moves the exam's report figures; an exam change its key or flags.
-- Deleting an exam is handled per row before the delete (stat_rollup_exam_delete):
-- its report is still there then, and goes with it by the foreign key's cascade.
CREATE OR REPLACE FUNCTION stat_rollup_sync() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  ecols text := 'e.id, e.hidden, e.created_at, e.hospital_id, e.modality, e.patient_source, e.sex, e.age, e.age_unit, e.price, e.exam_state,
                 e.image_status, e.sent_to_superior, e.arrived_at, e.exam_time, e.images_at';
  rcols text := 'r.first_trial_time, r.retrial_time, r.positive';
  none text := 'NULL::timestamptz AS first_trial_time, NULL::timestamptz AS retrial_time, NULL::boolean AS positive';
  src text;
BEGIN
  IF TG_TABLE_NAME = 'exam' THEN
    IF TG_OP = 'INSERT' THEN
      src := format('SELECT 1 AS sgn, %s, %s FROM stat_new e LEFT JOIN report r ON r.id = e.id', ecols, rcols);
    ELSE
      -- Most updates touch no counted column: a cheap static test (its plan kept) before
      -- the dynamic upserts, which cost a few ms a statement to plan.
      IF NOT EXISTS (SELECT 1 FROM stat_old o JOIN stat_new n ON n.id = o.id
                      WHERE (o.hidden, o.created_at, o.hospital_id, o.modality, o.patient_source, o.sex, o.age, o.age_unit, o.price, o.exam_state,
                             o.image_status, o.sent_to_superior, o.arrived_at, o.exam_time, o.images_at)
                            IS DISTINCT FROM
                            (n.hidden, n.created_at, n.hospital_id, n.modality, n.patient_source, n.sex, n.age, n.age_unit, n.price, n.exam_state,
                             n.image_status, n.sent_to_superior, n.arrived_at, n.exam_time, n.images_at)) THEN
        RETURN NULL;
      END IF;
      -- The statement's rows out as they were, in as they are (an unchanged row's two cancel).
      src := format('SELECT -1 AS sgn, %1$s, %2$s FROM stat_old e LEFT JOIN report r ON r.id = e.id
                     UNION ALL SELECT 1, %1$s, %2$s FROM stat_new e LEFT JOIN report r ON r.id = e.id', ecols, rcols);
    END IF;
  ELSIF TG_OP = 'INSERT' THEN
    src := format('SELECT -1 AS sgn, %s, %s FROM stat_new r JOIN exam e ON e.id = r.id
                   UNION ALL SELECT 1, %s, %s FROM stat_new r JOIN exam e ON e.id = r.id', ecols, none, ecols, rcols);
  ELSIF TG_OP = 'DELETE' THEN
    src := format('SELECT -1 AS sgn, %s, %s FROM stat_old r JOIN exam e ON e.id = r.id
                   UNION ALL SELECT 1, %s, %s FROM stat_old r JOIN exam e ON e.id = r.id', ecols, rcols, ecols, none);
  ELSE
    IF NOT EXISTS (SELECT 1 FROM stat_old o JOIN stat_new n ON n.id = o.id
                    WHERE (o.first_trial_time, o.retrial_time, o.positive) IS DISTINCT FROM (n.first_trial_time, n.retrial_time, n.positive)) THEN
      RETURN NULL;
    END IF;
    src := format('SELECT s.sgn, %s, s.first_trial_time, s.retrial_time, s.positive
                     FROM stat_old o JOIN stat_new n ON n.id = o.id JOIN exam e ON e.id = n.id
                    CROSS JOIN LATERAL (VALUES (-1, o.first_trial_time, o.retrial_time, o.positive), (1, n.first_trial_time, n.retrial_time, n.positive))
                          s (sgn, first_trial_time, retrial_time, positive)
                    WHERE (o.first_trial_time, o.retrial_time, o.positive) IS DISTINCT FROM (n.first_trial_time, n.retrial_time, n.positive)', ecols);
  END IF;
  EXECUTE stat_rollup_sql(src);
  EXECUTE stat_rollup_bin_sql(src);
  RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION stat_rollup_exam_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  src text := format('SELECT -1 AS sgn, e.id, e.hidden, e.created_at, e.hospital_id, e.modality, e.patient_source, e.sex, e.age, e.age_unit, e.price,
                             e.exam_state, e.image_status, e.sent_to_superior, e.arrived_at, e.exam_time, e.images_at,
                             r.first_trial_time, r.retrial_time, r.positive
                        FROM exam e LEFT JOIN report r ON r.id = e.id WHERE e.id = %s', OLD.id);
BEGIN
  EXECUTE stat_rollup_sql(src);
  EXECUTE stat_rollup_bin_sql(src);
  RETURN OLD;
END;
$$;

-- Transition tables allow one event per trigger.
DROP TRIGGER IF EXISTS stat_rollup_exam_insert ON exam;
CREATE TRIGGER stat_rollup_exam_insert AFTER INSERT ON exam REFERENCING NEW TABLE AS stat_new FOR EACH STATEMENT EXECUTE FUNCTION stat_rollup_sync();
DROP TRIGGER IF EXISTS stat_rollup_exam_update ON exam;
CREATE TRIGGER stat_rollup_exam_update AFTER UPDATE ON exam REFERENCING OLD TABLE AS stat_old NEW TABLE AS stat_new FOR EACH STATEMENT EXECUTE FUNCTION stat_rollup_sync();
DROP TRIGGER IF EXISTS stat_rollup_exam_delete ON exam;
CREATE TRIGGER stat_rollup_exam_delete BEFORE DELETE ON exam FOR EACH ROW EXECUTE FUNCTION stat_rollup_exam_delete();
DROP TRIGGER IF EXISTS stat_rollup_report_insert ON report;
CREATE TRIGGER stat_rollup_report_insert AFTER INSERT ON report REFERENCING NEW TABLE AS stat_new FOR EACH STATEMENT EXECUTE FUNCTION stat_rollup_sync();
DROP TRIGGER IF EXISTS stat_rollup_report_update ON report;
CREATE TRIGGER stat_rollup_report_update AFTER UPDATE ON report REFERENCING OLD TABLE AS stat_old NEW TABLE AS stat_new FOR EACH STATEMENT EXECUTE FUNCTION stat_rollup_sync();
DROP TRIGGER IF EXISTS stat_rollup_report_delete ON report;
CREATE TRIGGER stat_rollup_report_delete AFTER DELETE ON report REFERENCING OLD TABLE AS stat_old FOR EACH STATEMENT EXECUTE FUNCTION stat_rollup_sync();

-- Existing data, once.
TRUNCATE stat_rollup, stat_rollup_bin;
DO $$
DECLARE
  src text := 'SELECT 1 AS sgn, e.id, e.hidden, e.created_at, e.hospital_id, e.modality, e.patient_source, e.sex, e.age, e.age_unit, e.price,
                      e.exam_state, e.image_status, e.sent_to_superior, e.arrived_at, e.exam_time, e.images_at,
                      r.first_trial_time, r.retrial_time, r.positive
                 FROM exam e LEFT JOIN report r ON r.id = e.id';
BEGIN
  EXECUTE stat_rollup_sql(src);
  EXECUTE stat_rollup_bin_sql(src);
END;
$$;
