// PerformanceManager with a small, realistic counter catalogue (`perfCounter`, QueryPerfCounter,
// QueryAvailablePerfMetric, QueryPerfProviderSummary) and QueryPerf returning synthetic but
// deterministic samples: the value at a timestamp is a function of the entity, the counter and the
// time, so repeated queries agree with each other. Powered-off VMs have no real-time samples, as on
// vCenter.

import { faults } from './faults.js';
import { PlainObject, type Model } from './model.js';
import { hashString } from './seeded.js';
import { decodedObject, list, num, scalar, type DecodedObject } from './soap-parse.js';
import { arrayOf, data, MoRef, time, type DataObject } from './vim-values.js';

interface Counter {
  key: number;
  group: string;
  name: string;
  rollup: string;
  unit: string;
  stats: string;
  level: number;
  label: string;
  /** Typical magnitude of a sample, in the counter's unit. */
  scale: number;
}

const COUNTERS: Counter[] = [
  { key: 2, group: 'cpu', name: 'usage', rollup: 'average', unit: 'percent', stats: 'rate', level: 1, label: 'Usage', scale: 3500 },
  { key: 6, group: 'cpu', name: 'usagemhz', rollup: 'average', unit: 'megaHertz', stats: 'rate', level: 1, label: 'Usage in MHz', scale: 900 },
  { key: 12, group: 'cpu', name: 'ready', rollup: 'summation', unit: 'millisecond', stats: 'delta', level: 1, label: 'Ready', scale: 120 },
  { key: 24, group: 'mem', name: 'usage', rollup: 'average', unit: 'percent', stats: 'absolute', level: 1, label: 'Usage', scale: 4200 },
  { key: 33, group: 'mem', name: 'active', rollup: 'average', unit: 'kiloBytes', stats: 'absolute', level: 2, label: 'Active', scale: 600_000 },
  { key: 98, group: 'mem', name: 'consumed', rollup: 'average', unit: 'kiloBytes', stats: 'absolute', level: 1, label: 'Consumed', scale: 1_500_000 },
  { key: 125, group: 'disk', name: 'usage', rollup: 'average', unit: 'kiloBytesPerSecond', stats: 'rate', level: 1, label: 'Usage', scale: 800 },
  { key: 130, group: 'disk', name: 'read', rollup: 'average', unit: 'kiloBytesPerSecond', stats: 'rate', level: 2, label: 'Read rate', scale: 500 },
  { key: 131, group: 'disk', name: 'write', rollup: 'average', unit: 'kiloBytesPerSecond', stats: 'rate', level: 2, label: 'Write rate', scale: 300 },
  { key: 143, group: 'net', name: 'usage', rollup: 'average', unit: 'kiloBytesPerSecond', stats: 'rate', level: 1, label: 'Usage', scale: 400 },
  { key: 146, group: 'net', name: 'received', rollup: 'average', unit: 'kiloBytesPerSecond', stats: 'rate', level: 2, label: 'Data receive rate', scale: 250 },
  { key: 147, group: 'net', name: 'transmitted', rollup: 'average', unit: 'kiloBytesPerSecond', stats: 'rate', level: 2, label: 'Data transmit rate', scale: 150 },
];

const REALTIME = 20;
const INTERVALS = [[300, 'Past day', 86400], [1800, 'Past week', 604800], [7200, 'Past month', 2592000], [86400, 'Past year', 31536000]] as const;

function elementDescription(key: string, label: string): DataObject {
  return data('ElementDescription', { label, summary: label, key });
}

function counterInfo(c: Counter): DataObject {
  return data('PerfCounterInfo', {
    key: c.key,
    nameInfo: elementDescription(c.name, c.label),
    groupInfo: elementDescription(c.group, c.group.toUpperCase()),
    unitInfo: elementDescription(c.unit, c.unit),
    rollupType: c.rollup, statsType: c.stats, level: c.level, perDeviceLevel: c.level + 1,
  });
}

/** One sample: a daily sine plus hashed jitter, always within [0, 2 * scale]. */
function sample(entitySeed: number, c: Counter, tsMs: number): number {
  const phase = ((tsMs / 86400_000) * 2 * Math.PI) + (entitySeed % 628) / 100;
  const jitter = (hashString(`${entitySeed}/${c.key}/${Math.floor(tsMs / 1000)}`) % 1000) / 1000;
  return Math.max(0, Math.round(c.scale * (0.6 + 0.3 * Math.sin(phase) + 0.3 * jitter)));
}

export class PerfManager {
  constructor(private readonly model: Model) {
    model.add(new PlainObject('PerformanceManager', 'PerfMgr', {
      perfCounter: arrayOf('PerfCounterInfo', COUNTERS.map(counterInfo)),
      historicalInterval: INTERVALS.map(([samplingPeriod, name, length], i) =>
        data('PerfInterval', { key: i + 1, samplingPeriod, name, length, level: 1, enabled: true })),
      description: data('PerformanceDescription', { counterType: [], statsType: [] }),
    }));
  }

  private entity(v: unknown): { ref: MoRef; seed: number; live: boolean } {
    if (!(v instanceof MoRef)) throw faults.invalidArgument('entity');
    const obj = this.model.lookup(v.value);
    if (!obj) throw faults.managedObjectNotFound(v);
    const vm = obj.type === 'VirtualMachine' ? this.model.vmState(v.value) : undefined;
    return { ref: v, seed: vm?.seed ?? hashString(v.value), live: vm ? vm.powerState === 'poweredOn' : true };
  }

  queryCounters(keys: number[]): DataObject[] {
    return keys.map((k) => COUNTERS.find((c) => c.key === k)).filter((c): c is Counter => !!c).map(counterInfo);
  }

  availableMetrics(entity: unknown): DataObject[] {
    this.entity(entity);
    return COUNTERS.map((c) => data('PerfMetricId', { counterId: c.key, instance: '' }));
  }

  providerSummary(entity: unknown): DataObject {
    const e = this.entity(entity);
    return data('PerfProviderSummary', { entity: e.ref, currentSupported: true, summarySupported: true, refreshRate: REALTIME });
  }

  query(specs: DecodedObject[]): DataObject[] {
    const out: DataObject[] = [];
    for (const spec of specs) {
      const e = this.entity(spec.entity);
      const interval = num(spec.intervalId) ?? REALTIME;
      if (interval === REALTIME && !e.live) continue;
      const stamps = this.timestamps(spec, interval);
      const ids = list(spec.metricId).map((m) => decodedObject(m)).filter((m): m is DecodedObject => !!m);
      const counters = ids.length
        ? ids.map((m) => COUNTERS.find((c) => c.key === num(m.counterId))).filter((c): c is Counter => !!c)
        : COUNTERS;
      if (stamps.length === 0) continue;
      if (scalar(spec.format) === 'csv') {
        out.push(data('PerfEntityMetricCSV', {
          entity: e.ref,
          sampleInfoCSV: stamps.map((t) => `${interval},${new Date(t).toISOString()}`).join(','),
          value: counters.map((c) => data('PerfMetricSeriesCSV', {
            id: data('PerfMetricId', { counterId: c.key, instance: '' }),
            value: stamps.map((t) => sample(e.seed, c, t)).join(','),
          })),
        }));
      } else {
        out.push(data('PerfEntityMetric', {
          entity: e.ref,
          sampleInfo: stamps.map((t) => data('PerfSampleInfo', { timestamp: time(t), interval })),
          value: counters.map((c) => data('PerfMetricIntSeries', {
            id: data('PerfMetricId', { counterId: c.key, instance: '' }),
            value: stamps.map((t) => sample(e.seed, c, t)),
          })),
        }));
      }
    }
    return out;
  }

  /** Sample times: the newest `maxSample`, or those in [startTime, endTime], aligned to the interval. */
  private timestamps(spec: DecodedObject, interval: number): number[] {
    const step = interval * 1000;
    const endRaw = scalar(spec.endTime);
    const startRaw = scalar(spec.startTime);
    const end = Math.floor(Math.min(endRaw ? Date.parse(endRaw) : Date.now(), Date.now()) / step) * step;
    const maxSample = num(spec.maxSample);
    const start = startRaw ? Date.parse(startRaw) : end - (interval === REALTIME ? 3600_000 : 86400_000);
    const out: number[] = [];
    for (let t = end; t > start && out.length < (maxSample ?? 1000); t -= step) out.push(t);
    return out.reverse();
  }
}
