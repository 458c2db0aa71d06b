/**
 * Renders a view's form from its entity schema (./toFormily) with the one component
 * registry. The caller owns the Formily form (see ./useEntityForm): a detail view is a
 * read-pretty form, nothing else changes.
 */
import type { Form } from '@formily/core';
import { Form as FormilyForm, PreviewText } from '@formily/antd-v5';
import { useMemo } from 'react';
import { SchemaField } from './registry';
import { toFormily } from './toFormily';
import type { View } from '../shared/schema/types';
import { useTranslate } from './useTranslate';
import type { FormMode } from '../shared/schema/views';

export interface SchemaFormProps {
  view: View;
  form: Form;
  mode: FormMode;
  /** Values the schema's expressions may name besides the registry's (a wizard's `formStep`). */
  scope?: Record<string, unknown>;
}

export function SchemaForm({ view, form, mode, scope }: SchemaFormProps) {
  // t changes with the language: titles and messages are texts, not keys.
  const { t } = useTranslate();
  const schema = useMemo(() => toFormily(view, { t, mode }), [view, mode, t]);
  return (
    <FormilyForm form={form} layout="vertical" colon={false} feedbackLayout="terse" data-testid="schema-form">
      {/* Spec section 5: an empty value shows "-". */}
      <PreviewText.Placeholder value="-">
        <SchemaField schema={schema} scope={scope} />
      </PreviewText.Placeholder>
    </FormilyForm>
  );
}

export default SchemaForm;
