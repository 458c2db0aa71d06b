-- A statistics view's Excel export (server/stats) is written at once and recorded as a
-- finished export job of its own kind, so it is listed on /exportReportList with the
-- other exports (spec sections 2 and 7: export records) and can be downloaded again.
ALTER TABLE export_job DROP CONSTRAINT IF EXISTS export_job_kind_check;
ALTER TABLE export_job ADD CONSTRAINT export_job_kind_check CHECK (kind IN ('exam', 'audit', 'stats'));
