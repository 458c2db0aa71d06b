/**
 * A record shown read-only through the schema machinery (SchemaForm, read-pretty) with
 * a form of the page's own choosing over an entity: the review panel's report fields.
 * Dates, code tables and empty values ("-") read as on every other detail screen.
 */
import { createForm } from '@formily/core';
import { useMemo } from 'react';
import { SchemaForm } from '../schema/SchemaForm';
import type { View } from '../shared/schema/types';

/** A view of `entity` that only lays out one form (no list, no route of its own). */
export function formView(entity: string, key: string, fields: string[], columns: number): View {
  return {
    $id: `report-detail/${key}`,
    entity,
    resource: entity,
    permission: 'report',
    list: { columns: [] },
    form: { columns, groups: [{ key, fields }] },
    routes: { list: '/reportDetail' },
  };
}

export function RecordView({ view, record }: { view: View; record: Record<string, unknown> }) {
  const form = useMemo(() => createForm({ readPretty: true, initialValues: record }), [record]);
  return <SchemaForm view={view} form={form} mode="detail" />;
}
