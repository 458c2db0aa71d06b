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
import type { View } from './types';
import type { FormMode } from './views';

export const VALIDATION_FAILED = 'UAA421';

export function showServerError(form: Form, error: unknown): boolean {
  if (!(error instanceof RequestError) || error.code !== VALIDATION_FAILED) return false;
  const reported = (error.data as { field?: unknown } | undefined)?.field;
  if (typeof reported !== 'string' || !reported) return false;
  const path = errorFieldPath(reported, (p) => Boolean(form.query(p).take()));
  if (!path) return false;
  form.setFieldState(path, (state) => {
    state.selfErrors = [error.message];
  });
  return true;
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

  /** Validates, saves and resolves with the saved record; rejects when invalid or refused. */
  const save = async (): Promise<Entity> =>
    form.submit(async (values: Record<string, unknown>) => {
      try {
        const saved = await api.save(toPayload(view, values, mode === 'edit' ? id : undefined));
        invalidateOptions(view.resource);
        return saved;
      } catch (e) {
        showServerError(form, e);
        throw e;
      }
    });

  return { form, loading, loadError, save };
}
