-- The rollup triggers' "did this statement change a counted column?" test, planned
-- for each statement (issue #19, speed).
--
-- Migrations 0037 and 0039 wrote the test as a static EXISTS over the old and new
-- transition tables joined by id. Transition tables have no statistics, so the planner
-- took most rows for changed and, an EXISTS wanting one row, chose a nested loop; and
-- PL/pgSQL kept that plan for the session. A bulk update that changed no counted column
-- then compared every old row with every new one: 5,000 rows took 8 s, 20,000 three
-- minutes. Now the test reads the whole join (bool_or), for which a hash join is the
-- cheap plan, and runs through EXECUTE, so it is planned with the statement's row counts.
-- Only the tests change; the upserts are those of 0037 and 0039.

-- The test over the columns `cols` of the statement's transition tables, as SQL text.
CREATE OR REPLACE FUNCTION stat_changed_sql(cols text[]) RETURNS text
LANGUAGE sql IMMUTABLE AS $f$
  SELECT format('SELECT coalesce(bool_or((%s) IS DISTINCT FROM (%s)), false) FROM stat_old o JOIN stat_new n ON n.id = o.id',
                (SELECT string_agg('o.' || quote_ident(c), ', ') FROM unnest(cols) c),
                (SELECT string_agg('n.' || quote_ident(c), ', ') FROM unnest(cols) c))
$f$;

CREATE OR REPLACE FUNCTION stat_rollup_sync() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  ecols text := 'e.id, e.hidden, e.created_at, e.hospital_id, e.modality, e.patient_source, e.sex, e.age, e.age_unit, e.price, e.exam_state,
                 e.image_status, e.sent_to_superior, e.arrived_at, e.exam_time, e.images_at';
  rcols text := 'r.first_trial_time, r.retrial_time, r.positive';
  none text := 'NULL::timestamptz AS first_trial_time, NULL::timestamptz AS retrial_time, NULL::boolean AS positive';
  changed boolean;
  src text;
BEGIN
  IF TG_TABLE_NAME = 'exam' THEN
    IF TG_OP = 'INSERT' THEN
      src := format('SELECT 1 AS sgn, %s, %s FROM stat_new e LEFT JOIN report r ON r.id = e.id', ecols, rcols);
    ELSE
      -- Most updates touch no counted column: a cheap test before the upserts, which cost a
      -- few ms a statement to plan.
      EXECUTE stat_changed_sql(ARRAY['hidden', 'created_at', 'hospital_id', 'modality', 'patient_source', 'sex', 'age', 'age_unit', 'price',
                                     'exam_state', 'image_status', 'sent_to_superior', 'arrived_at', 'exam_time', 'images_at']) INTO changed;
      IF NOT changed THEN
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
    EXECUTE stat_changed_sql(ARRAY['first_trial_time', 'retrial_time', 'positive']) INTO changed;
    IF NOT changed THEN
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

CREATE OR REPLACE FUNCTION stat_work_rollup_sync() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  ecols text := 'e.hidden, e.hospital_id, e.modality, e.work_weight, e.exam_time, e.created_at';
  rcols text := 'r.writer_id, r.writer_name, r.first_trial_time, r.reviewer_id, r.reviewer_name, r.retrial_time,
                 r.recheck_doctor_id, r.recheck_doctor_name, r.recheck_time, r.positive';
  changed boolean;
  src text;
BEGIN
  IF TG_TABLE_NAME = 'exam' THEN
    -- An exam without a report has no work: an insert adds none; most updates touch no counted column.
    EXECUTE stat_changed_sql(ARRAY['hidden', 'hospital_id', 'modality', 'work_weight', 'exam_time', 'created_at']) INTO changed;
    IF NOT changed THEN
      RETURN NULL;
    END IF;
    src := format('SELECT -1 AS sgn, %1$s, %2$s FROM stat_old e JOIN report r ON r.id = e.id
                   UNION ALL SELECT 1, %1$s, %2$s FROM stat_new e JOIN report r ON r.id = e.id', ecols, rcols);
  ELSIF TG_OP = 'INSERT' THEN
    src := format('SELECT 1 AS sgn, %s, %s FROM stat_new r JOIN exam e ON e.id = r.id', ecols, rcols);
  ELSIF TG_OP = 'DELETE' THEN
    src := format('SELECT -1 AS sgn, %s, %s FROM stat_old r JOIN exam e ON e.id = r.id', ecols, rcols);
  ELSE
    EXECUTE stat_changed_sql(ARRAY['writer_id', 'writer_name', 'first_trial_time', 'reviewer_id', 'reviewer_name', 'retrial_time',
                                   'recheck_doctor_id', 'recheck_doctor_name', 'recheck_time', 'positive']) INTO changed;
    IF NOT changed THEN
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
