/**
 * Catches render errors: records them in the error list; a failed chunk load reloads
 * the same route once (see chunkReload.ts); anything else shows a result with a reload
 * button. Used at the app root and around the layout's page area.
 */
import { Button, Result } from 'antd';
import React from 'react';
import { useTranslation } from 'react-i18next';
import { recordError } from '../errorLog/collect';
import { claimChunkReload, isChunkLoadError } from './chunkReload';

function ErrorFallback() {
  const { t } = useTranslation();
  return (
    <Result
      status="error"
      title={t('common.errorBoundary.title')}
      subTitle={t('common.errorBoundary.description')}
      extra={
        <Button type="primary" onClick={() => window.location.reload()}>
          {t('common.reload')}
        </Button>
      }
    />
  );
}

interface Props {
  children?: React.ReactNode;
}

export class ErrorBoundary extends React.Component<Props, { error: unknown; reloading: boolean }> {
  state = { error: null as unknown, reloading: false };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  componentDidCatch(error: unknown) {
    recordError(error);
    if (isChunkLoadError(error) && claimChunkReload(sessionStorage, window.location.pathname + window.location.search)) {
      this.setState({ reloading: true });
      window.location.reload();
    }
  }

  render() {
    if (this.state.error) return this.state.reloading ? null : <ErrorFallback />;
    return this.props.children;
  }
}
