-- The reports waiting at a remote centre (issue #19, the central worklist's speed): one
-- narrow row per report sent to a superior hospital and not approved there, with the
-- columns its work tabs choose and count their rows on (server/report/read.ts, listSpec,
-- keyFrom). Migration 0036's two partial indexes let that count walk the waiting reports
-- of exam and report side by side and join them on the id; here one small table holds
-- both sides, so the count is one walk of it and the page one walk of an index in the
-- tab's order (bench/suites/remote.ts).
--
-- Kept by statement-level triggers on report and exam in the writing transaction, so
-- every writer (the engine, the sweep, the bulk loads of tests and benches) keeps it;
-- filled below for existing data. tests/api/remote.test.ts compares it with its
-- definition after each step of the loop.

CREATE TABLE IF NOT EXISTS remote_work (
  id integer PRIMARY KEY REFERENCES exam (id) ON DELETE CASCADE,
  -- The report's.
  superior_hospital_id integer,
  report_state integer NOT NULL,
  due_at timestamptz,
  remote_claimed_by integer,
  remote_claimed_at timestamptz,
  -- The exam's.
  hospital_id integer NOT NULL,
  exam_state integer NOT NULL,
  hidden boolean NOT NULL,
  created_at timestamptz NOT NULL
);

-- The work tabs' two orders as listSpec writes them: most urgent first (as they open), and
-- newest first (a sorted column, then the tab's own order).
CREATE INDEX IF NOT EXISTS remote_work_due_idx ON remote_work (due_at, id DESC);
CREATE INDEX IF NOT EXISTS remote_work_created_idx ON remote_work (created_at DESC NULLS LAST, due_at, id DESC);

-- Brings the rows of the reports in `remote_work_ids` (a transition table's ids) to what
-- report and exam hold now: waiting ones written, the others removed.
CREATE OR REPLACE FUNCTION remote_work_sync_sql(ids text) RETURNS text
LANGUAGE sql IMMUTABLE AS $f$
  SELECT format($q$
    WITH touched AS (SELECT DISTINCT id FROM (%1$s) t),
    now_waiting AS (
      SELECT r.id, r.superior_hospital_id, r.report_state, r.due_at, r.remote_claimed_by, r.remote_claimed_at,
             e.hospital_id, e.exam_state, e.hidden, e.created_at
        FROM touched t JOIN report r ON r.id = t.id JOIN exam e ON e.id = r.id
       WHERE r.sent_to_superior AND r.report_state <> 4),
    gone AS (
      DELETE FROM remote_work w USING touched t
       WHERE w.id = t.id AND NOT EXISTS (SELECT 1 FROM now_waiting n WHERE n.id = t.id))
    INSERT INTO remote_work AS w (id, superior_hospital_id, report_state, due_at, remote_claimed_by, remote_claimed_at,
                                  hospital_id, exam_state, hidden, created_at)
    SELECT * FROM now_waiting ORDER BY id
    ON CONFLICT (id) DO UPDATE
       SET superior_hospital_id = excluded.superior_hospital_id, report_state = excluded.report_state, due_at = excluded.due_at,
           remote_claimed_by = excluded.remote_claimed_by, remote_claimed_at = excluded.remote_claimed_at,
           hospital_id = excluded.hospital_id, exam_state = excluded.exam_state, hidden = excluded.hidden, created_at = excluded.created_at
     -- A report saved while waiting changes none of these: its row is left as it is.
     WHERE (w.superior_hospital_id, w.report_state, w.due_at, w.remote_claimed_by, w.remote_claimed_at,
            w.hospital_id, w.exam_state, w.hidden, w.created_at)
           IS DISTINCT FROM
           (excluded.superior_hospital_id, excluded.report_state, excluded.due_at, excluded.remote_claimed_by, excluded.remote_claimed_at,
            excluded.hospital_id, excluded.exam_state, excluded.hidden, excluded.created_at)$q$, ids)
$f$;

-- Reports inserted, updated or deleted: each touched report's row brought up to date.
CREATE OR REPLACE FUNCTION remote_work_report_sync() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM remote_work w USING remote_old o WHERE w.id = o.id;
  ELSE
    EXECUTE remote_work_sync_sql('SELECT id FROM remote_new');
  END IF;
  RETURN NULL;
END $$;

-- Exams updated: only those with a waiting row can change one, and only in its exam columns.
CREATE OR REPLACE FUNCTION remote_work_exam_sync() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE remote_work w
     SET hospital_id = n.hospital_id, exam_state = n.exam_state, hidden = n.hidden, created_at = n.created_at
    FROM remote_new n
   WHERE w.id = n.id AND (w.hospital_id, w.exam_state, w.hidden, w.created_at) IS DISTINCT FROM (n.hospital_id, n.exam_state, n.hidden, n.created_at);
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS remote_work_report_insert ON report;
CREATE TRIGGER remote_work_report_insert AFTER INSERT ON report REFERENCING NEW TABLE AS remote_new FOR EACH STATEMENT EXECUTE FUNCTION remote_work_report_sync();
DROP TRIGGER IF EXISTS remote_work_report_update ON report;
CREATE TRIGGER remote_work_report_update AFTER UPDATE ON report REFERENCING NEW TABLE AS remote_new FOR EACH STATEMENT EXECUTE FUNCTION remote_work_report_sync();
DROP TRIGGER IF EXISTS remote_work_report_delete ON report;
CREATE TRIGGER remote_work_report_delete AFTER DELETE ON report REFERENCING OLD TABLE AS remote_old FOR EACH STATEMENT EXECUTE FUNCTION remote_work_report_sync();
DROP TRIGGER IF EXISTS remote_work_exam_update ON exam;
CREATE TRIGGER remote_work_exam_update AFTER UPDATE ON exam REFERENCING NEW TABLE AS remote_new FOR EACH STATEMENT EXECUTE FUNCTION remote_work_exam_sync();

-- The reports waiting now.
INSERT INTO remote_work (id, superior_hospital_id, report_state, due_at, remote_claimed_by, remote_claimed_at, hospital_id, exam_state, hidden, created_at)
SELECT r.id, r.superior_hospital_id, r.report_state, r.due_at, r.remote_claimed_by, r.remote_claimed_at, e.hospital_id, e.exam_state, e.hidden, e.created_at
  FROM report r JOIN exam e ON e.id = r.id
 WHERE r.sent_to_superior AND r.report_state <> 4
ON CONFLICT (id) DO NOTHING;
