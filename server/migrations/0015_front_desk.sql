-- Per-hospital front-desk and critical-value choices (issue 17), edited on the
-- hospital's form like its other settings (uploader flag, AI algorithms).
--
-- check_in_on_registration: a walk-in registered at the desk has arrived (enters the
-- worklist at once), as before; off, it waits for check-in (到检) like an appointment.
ALTER TABLE org ADD COLUMN check_in_on_registration boolean NOT NULL DEFAULT true;
-- crisis_department_ids: departments of the hospital (JSON array of department ids)
-- that receive every critical value of the hospital, beside the requesting department
-- (a medical affairs office, an emergency desk). A notice whose requesting department
-- is none of the hospital's reaches only these.
ALTER TABLE org ADD COLUMN crisis_department_ids jsonb NOT NULL DEFAULT '[]'::jsonb;
