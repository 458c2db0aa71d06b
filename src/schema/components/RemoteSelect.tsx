/**
 * A select whose options come from a view's `options` source: a code table, or a
 * resource's GET /options (cached, see ../options). `dependsOn` parameters are read
 * from sibling fields (e.g. the department of a membership row takes the row's
 * hospitalId), or with a leading "/" from the form's top-level field (an exam item row
 * takes the exam's hospitalId); when such a field changes, the chosen value is cleared.
 * Read-pretty shows the chosen labels.
 */
import type { Field } from '@formily/core';
import { connect, mapProps, mapReadPretty, observer, useField } from '@formily/react';
import { PreviewText } from '@formily/antd-v5';
import { Select, type SelectProps } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { loadOptions } from '../options';
import type { Option, OptionSource, Scalar } from '../../shared/schema/types';
import { useTranslate } from '../useTranslate';

export interface RemoteSelectProps extends Omit<SelectProps, 'options'> {
  source?: OptionSource;
  options?: Option[];
}

function useDepends(source: OptionSource | undefined): Record<string, Scalar | undefined> {
  const field = useField<Field>();
  const out: Record<string, Scalar | undefined> = {};
  if (!source || !('resource' in source) || !source.dependsOn || !field) return out;
  for (const [param, name] of Object.entries(source.dependsOn)) {
    // "/hospitalId": the form's own field, from a row of an array that has none of its own.
    out[param] = (name.startsWith('/') ? field.form.getValuesIn(name.slice(1)) : field.query(`.${name}`).value()) as Scalar | undefined;
  }
  return out;
}

/** Options of `source` (falls back to `fallback`, e.g. an enum, without a source). */
export function useSourceOptions(source: OptionSource | undefined, fallback?: Option[]) {
  const { t } = useTranslate();
  const depends = useDepends(source);
  const dependKey = JSON.stringify(depends);
  const sourceKey = JSON.stringify(source ?? null);
  const [state, setState] = useState<{ options: Option[]; loading: boolean }>({ options: [], loading: Boolean(source) });
  useEffect(() => {
    if (!source) return undefined;
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    loadOptions(source, t, depends)
      .then((options) => live && setState({ options, loading: false }))
      .catch(() => live && setState({ options: [], loading: false }));
    return () => {
      live = false;
    };
    // source and depends are compared by their JSON (sourceKey, dependKey).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [sourceKey, dependKey, t]);
  return { options: source ? state.options : (fallback ?? []), loading: state.loading, dependKey };
}

const RemoteSelectControl = observer((props: RemoteSelectProps) => {
  const { source, options: fallback, onChange, value, ...rest } = props;
  const { options, loading, dependKey } = useSourceOptions(source, fallback);
  const previous = useRef(dependKey);
  useEffect(() => {
    if (previous.current === dependKey) return;
    previous.current = dependKey;
    if (value !== undefined && value !== null) onChange?.(undefined, []);
  }, [dependKey, value, onChange]);
  return (
    <Select
      showSearch
      allowClear
      optionFilterProp="label"
      {...rest}
      value={value}
      onChange={onChange}
      loading={loading || rest.loading}
      options={options}
    />
  );
});

const RemoteSelectText = observer((props: RemoteSelectProps) => {
  const { source, options: fallback, ...rest } = props;
  const { options } = useSourceOptions(source, fallback);
  return <PreviewText.Select {...rest} options={options} />;
});

export const RemoteSelect = connect(
  RemoteSelectControl,
  // An `enum` on the field serves as the options when no source is given.
  mapProps({ dataSource: 'options', loading: true }),
  mapReadPretty(RemoteSelectText),
);

export default RemoteSelect;
