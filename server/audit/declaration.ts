/**
 * What a route declares about itself for the audit trail (its `config.audit`): the
 * action and object type from the code tables, where the object's id is, whether it
 * names patient data. Read by the audit plugin (../plugins/audit.ts) and by the route
 * factories of server/lib, which must not import a plugin.
 */
import type { PatientRef } from './trail';
import auditActions from '../../schemas/codes/auditAction.json';
import auditObjects from '../../schemas/codes/auditObject.json';
import { adminEntities } from '../../config/declared';

/** What a call does, as the auditor filters it: the code table is the one list (a route naming another fails at start-up). */
export const AUDIT_ACTIONS: readonly string[] = auditActions.enum;
export type AuditAction = string;
/** The object types, likewise one code table. */
/**
 * The object types: the code table, and each admin entity a view declares (its
 * resource name, text code.auditObject.<resource>), so such an entity needs no edit here.
 */
export const AUDIT_OBJECTS: readonly string[] = [...auditObjects.enum, ...adminEntities().map((a) => a.decl.resource)];

export interface AuditSpec {
  action: AuditAction;
  /** The object type recorded (an entity name: exam, report, study, user, role, config…). */
  object: string;
  /**
   * Where the object's id is: `params.<name>`, `body.<name>`, `query.<name>`, or `reply`
   * (the answer's data.id: what a create made).
   */
  id?: string;
  /** The id names patient data: an exam (a report's id is its exam's), a study row or a Study Instance UID. */
  patient?: PatientRef;
  /** Where a public route names who acts (the login's mobile): `body.<name>` or `params.<name>`. */
  subject?: string;
}

export type AuditDeclaration = 'none' | AuditSpec;
