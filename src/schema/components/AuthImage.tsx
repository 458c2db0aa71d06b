/**
 * A picture the API or DICOMweb serves only with the session's headers (an exam's
 * thumbnail, a series' rendered image): fetched through the request wrapper as a blob
 * and shown from an object URL, released when the path changes or the picture goes.
 * A DICOMweb rendered path is asked for at twice the shown size (viewport), so a
 * 512x512 image is not sent to fill 48 pixels. A failure shows a placeholder, quietly:
 * a missing thumbnail is not worth a toast.
 */
import { PictureOutlined } from '@ant-design/icons';
import { Spin, theme } from 'antd';
import { useEffect, useState } from 'react';
import { request } from '../../services/request';

export interface AuthImageProps {
  path: string;
  alt: string;
  width?: number;
  height?: number;
  testId?: string;
}

const RENDERED = /\/rendered$/;

export function AuthImage({ path, alt, width = 48, height = 48, testId = 'auth-image' }: AuthImageProps) {
  const { token } = theme.useToken();
  const [state, setState] = useState<{ url?: string; failed: boolean }>({ failed: false });
  useEffect(() => {
    let live = true;
    let url: string | undefined;
    setState({ failed: false });
    const query = RENDERED.test(path) ? { viewport: `${width * 2},${height * 2}` } : undefined;
    request<Blob>(path, { responseType: 'blob', quiet: true, query })
      .then((blob) => {
        if (!live) return;
        url = URL.createObjectURL(blob);
        setState({ url, failed: false });
      })
      .catch(() => live && setState({ failed: true }));
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [path, width, height]);

  const frame = {
    width,
    height,
    display: 'flex',
    alignItems: 'center',
    justifyContent: 'center',
    background: '#000',
    borderRadius: token.borderRadiusSM,
    overflow: 'hidden',
    flex: 'none',
  } as const;
  if (state.url)
    return (
      <div style={frame}>
        <img src={state.url} alt={alt} title={alt} data-testid={testId} style={{ maxWidth: '100%', maxHeight: '100%', display: 'block' }} />
      </div>
    );
  return (
    <div style={{ ...frame, background: token.colorFillQuaternary }} data-testid={`${testId}-${state.failed ? 'failed' : 'loading'}`}>
      {state.failed ? <PictureOutlined style={{ color: token.colorTextQuaternary, fontSize: Math.min(width, height) / 2 }} /> : <Spin size="small" />}
    </div>
  );
}

export default AuthImage;
