/**
 * What files are for: one declared table of purposes (who owns such a file, which
 * types and sizes it may have, what keeping it changes in the owner's record) and
 * one of owner kinds (which rights read and write an owner's files, and how to find
 * the owner within the caller's data scope). Adding a purpose is one entry here and
 * its locale key `code.filePurpose.<purpose>`; the limits come from
 * schemas/limits.json. Reads app_user, user_membership, exam and expert; writes
 * app_user.signature_key (the signature purpose) and expert.avatar (the avatar).
 */
import { LIMITS } from '../../config/limits';
import { AppError } from '../lib/errors';
import type { Queryable } from '../db';
import { assertGovernsUser } from '../identity/grants';
import { requireHospital, scopeSql } from '../identity/scope';
import type { AuthContext } from '../identity/sessions';
// The exam's scope (custom data conditions included) is the exam domain's rule.
import { inScope as examScope } from '../exam/domain';

export interface OwnerKind {
  /** Rights any of which lets a caller read the owner's files (besides the owner being in scope). */
  read: string[];
  /** Rights any of which lets a caller add or delete the owner's files. */
  write: string[];
  /** The owner when it exists within the caller's data scope: its hospital (null: it spans hospitals). */
  find(q: Queryable, id: number, me: AuthContext): Promise<{ hospitalId: number | null } | undefined>;
  /** A further rule for writing (a user's signature needs every membership governed). */
  assertWrite?(q: Queryable, id: number, me: AuthContext): Promise<void>;
}

export const OWNER_KINDS: Record<string, OwnerKind> = {
  user: {
    read: ['system.user:view'],
    write: ['system.user:edit'],
    async find(q, id, me) {
      const params: unknown[] = [id];
      const scope = scopeSql(me.scope, { hospitalSql: (p) => `EXISTS (SELECT 1 FROM user_membership m WHERE m.user_id = u.id AND m.hospital_id = ANY(${p}))` }, params);
      const { rows } = await q.query(`SELECT 1 FROM app_user u WHERE u.id = $1 AND ${scope}`, params);
      return rows[0] ? { hospitalId: null } : undefined;
    },
    // The signature signs reports in every hospital of the user (identity/grants.ts).
    assertWrite: (q, id, me) => assertGovernsUser(q, me, id),
  },
  expert: {
    // An expert is the region's directory entry the applicants choose from (open experts of
    // any hospital): whoever lists experts or takes part in consultations sees the avatar.
    read: ['expert:view', 'consult:view', 'consult:start', 'consult:join', 'consult:audit'],
    write: ['expert:edit'],
    async find(q, id) {
      const { rows } = await q.query<{ hospital_id: number }>('SELECT hospital_id FROM expert WHERE id = $1', [id]);
      return rows[0] ? { hospitalId: rows[0].hospital_id } : undefined;
    },
    // Changed only by whoever may edit the expert: its hospital within their data scope, as the expert table's own save.
    async assertWrite(q, id, me) {
      const { rows } = await q.query<{ hospital_id: number }>('SELECT hospital_id FROM expert WHERE id = $1', [id]);
      if (!rows[0]) throw new AppError('FILE002');
      requireHospital(me.scope, rows[0].hospital_id);
    },
  },
  exam: {
    // Whoever may open the exam in one of the modules that show it.
    read: ['registration:view', 'report:view', 'consult:view'],
    write: ['registration:modifyExam', 'consult:start'],
    async find(q, id, me) {
      const params: unknown[] = [id];
      const { rows } = await q.query<{ hospital_id: number }>(`SELECT e.hospital_id FROM exam e WHERE e.id = $1 AND ${scopeSql(me.scope, examScope, params)}`, params);
      return rows[0] ? { hospitalId: rows[0].hospital_id } : undefined;
    },
  },
};

/** Where an expert's avatar is read (GET /api/consult/v1/expert/avatar/:id, server/routes/consult.ts); `v` names the file so a replaced one is not the cached one. */
export function expertAvatarPath(expertId: number, fileId: string): string {
  return `/api/consult/v1/expert/avatar/${expertId}?v=${fileId}`;
}

export interface KeptFile {
  id: string;
  ownerId: number;
  storageKey: string;
}

export interface Purpose {
  owner: keyof typeof OWNER_KINDS;
  /** MIME types accepted, as sniffed from the content. */
  types: string[];
  maxBytes: number;
  /** Exact pixel size of a picture (JPEG and PNG only). */
  pixels?: { width: number; height: number };
  /** At most this many complete files per owner at once (the signature: one, a new one replaces it). */
  perOwner?: number;
  /** What keeping the file changes in its owner's record, in the completing transaction. */
  attach?(q: Queryable, file: KeptFile): Promise<void>;
  /** What deleting it changes there. */
  detach?(q: Queryable, file: KeptFile): Promise<void>;
}

export const PURPOSES: Record<string, Purpose> = {
  // The doctor's signature picture printed on reports (spec: JPG or PNG, at most 1 MB, 200x130).
  signature: {
    owner: 'user',
    types: ['image/jpeg', 'image/png'],
    maxBytes: LIMITS.signatureMaxBytes,
    pixels: { width: LIMITS.signatureWidth, height: LIMITS.signatureHeight },
    perOwner: 1,
    // The print sheet and the signature list read app_user.signature_key.
    attach: async (q, f) => {
      await q.query('UPDATE app_user SET signature_key = $2, updated_at = now() WHERE id = $1', [f.ownerId, f.storageKey]);
    },
    detach: async (q, f) => {
      await q.query('UPDATE app_user SET signature_key = NULL, updated_at = now() WHERE id = $1 AND signature_key = $2', [f.ownerId, f.storageKey]);
    },
  },
  // An expert's avatar (spec section 9: png or jpg under 5 MB), shown on the expert list and
  // detail and beside the experts of a consultation; a new one replaces the old.
  expertAvatar: {
    owner: 'expert',
    types: ['image/jpeg', 'image/png'],
    maxBytes: LIMITS.avatarMaxBytes,
    perOwner: 1,
    // expert.avatar is where the list and the detail find it: the expert's avatar path, with the file's id so a new one is fetched anew.
    attach: async (q, f) => {
      await q.query('UPDATE expert SET avatar = $2, updated_at = now() WHERE id = $1', [f.ownerId, expertAvatarPath(f.ownerId, f.id)]);
    },
    detach: async (q, f) => {
      await q.query('UPDATE expert SET avatar = NULL, updated_at = now() WHERE id = $1 AND avatar = $2', [f.ownerId, expertAvatarPath(f.ownerId, f.id)]);
    },
  },
  // Material of a consultation about an exam: case, pathology and lab reports, forms, images.
  examAttachment: {
    owner: 'exam',
    types: ['image/jpeg', 'image/png', 'application/pdf', 'application/dicom'],
    maxBytes: LIMITS.consultFileMaxBytes,
  },
};

/** Bytes per chunk of a resumable upload; a file this size or smaller may go in one request. */
export const CHUNK_SIZE = 1024 * 1024;
