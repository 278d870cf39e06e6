import { tracingExportConfigured } from './tracing';

describe('tracingExportConfigured', () => {
  it('exports only to a configured OTLP endpoint', () => {
    expect(tracingExportConfigured({})).toBe(false);
    expect(tracingExportConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingExportConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(
      true,
    );
  });

  it('honours the standard switches that turn export off', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingExportConfigured({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    expect(tracingExportConfigured({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingExportConfigured({ ...endpoint, OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
  });
});
