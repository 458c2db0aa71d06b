/**
 * One record in a Formily form, for the form page and the form modal alike: creates
 * the form (read-pretty for the detail view), loads the record by id, saves it
 * through the resource API and puts a server validation failure (UAA421 `field`) on
 * the field it names.
 */
import { createForm, type Form } from '@formily/core';
import { useEffect, useMemo, useState } from 'react';
import { RequestError } from '../services/request';
import { errorFieldPath, initialValues, toPayload } from './formData';
import { invalidateOptions } from './options';
import { resourceApi, type Entity } from './resource';
import type { View } from '../shared/schema/types';
import type { FormMode } from '../shared/schema/views';

export const VALIDATION_FAILED = 'UAA421';

export function showServerError(form: Form, error: unknown): boolean {
  if (!(error instanceof RequestError) || error.code !== VALIDATION_FAILED) return false;
  const reported = (error.data as { field?: unknown } | undefined)?.field;
  if (typeof reported !== 'string' || !reported) return false;
  const path = errorFieldPath(reported, (p) => Boolean(form.query(p).take()));
  if (!path) return false;
  // The field message alone (the server words it as the form does), else the whole text.
  const detail = (error.data as { detail?: unknown } | undefined)?.detail;
  form.setFieldState(path, (state) => {
    state.selfErrors = [typeof detail === 'string' && detail ? detail : error.message];
  });
  return true;
}

/**
 * The row a refused save names as being in the way (a duplicate code, name, label or
 * value: `existingId` in the reply), which the user may choose to overwrite by saving
 * again with `overwrite: true`; undefined for any other failure.
 */
export function overwriteOffer(error: unknown): number | undefined {
  if (!(error instanceof RequestError)) return undefined;
  const id = (error.data as { existingId?: unknown } | undefined)?.existingId;
  return typeof id === 'number' ? id : undefined;
}

export function useEntityForm(view: View, mode: FormMode, id?: string) {
  const api = useMemo(() => resourceApi(view.resource), [view.resource]);
  const form = useMemo(
    () =>
      createForm({
        readPretty: mode === 'detail',
        initialValues: mode === 'create' ? initialValues(view) : undefined,
      }),
    [view, mode, id],
  );
  const [loading, setLoading] = useState(mode !== 'create');
  const [loadError, setLoadError] = useState<unknown>(null);

  useEffect(() => {
    if (mode === 'create' || !id) {
      setLoading(false);
      return undefined;
    }
    let live = true;
    setLoading(true);
    setLoadError(null);
    api
      .detail(id)
      .then((record) => {
        if (!live) return;
        form.setInitialValues(record);
        setLoading(false);
      })
      .catch((e) => {
        if (!live) return;
        setLoadError(e);
        setLoading(false);
      });
    return () => {
      live = false;
    };
  }, [api, form, mode, id]);

  /** Validates, saves (with `extra` flags such as overwrite) and resolves with the saved record; rejects when invalid or refused. */
  const save = async (extra?: Entity): Promise<Entity> =>
    form.submit(async (values: Record<string, unknown>) => {
      try {
        const saved = await api.save({ ...toPayload(view, values, mode === 'edit' ? id : undefined), ...extra });
        invalidateOptions(view.resource);
        return saved;
      } catch (e) {
        showServerError(form, e);
        throw e;
      }
    });

  return { form, loading, loadError, save };
}
