// HostSystem.configManager: the per-host managers a client reaches from a host (datastore,
// network, storage, service, firewall, date/time, advanced options, auto-start), each a managed
// object with its common read properties, plus the host's datastore browser.

import { PlainObject, type Model } from './model.js';
import { AnyValue, arrayOf, data, ref, type DataObject, type MoRef } from './vim-values.js';

/** configManager field -> managed type; moids are `<prefix>-<host moid>` as on vCenter. */
const HOST_MANAGERS: Array<[field: string, type: string, prefix: string]> = [
  ['cpuScheduler', 'HostCpuSchedulerSystem', 'cpuSchedulerSystem'],
  ['datastoreSystem', 'HostDatastoreSystem', 'datastoreSystem'],
  ['memoryManager', 'HostMemorySystem', 'memoryManagerSystem'],
  ['storageSystem', 'HostStorageSystem', 'storageSystem'],
  ['networkSystem', 'HostNetworkSystem', 'networkSystem'],
  ['vmotionSystem', 'HostVMotionSystem', 'vmotionSystem'],
  ['serviceSystem', 'HostServiceSystem', 'serviceSystem'],
  ['firewallSystem', 'HostFirewallSystem', 'firewallSystem'],
  ['advancedOption', 'OptionManager', 'EsxHostAdvSettings'],
  ['dateTimeSystem', 'HostDateTimeSystem', 'dateTimeSystem'],
  ['autoStartManager', 'HostAutoStartManager', 'ha-autostart-mgr'],
];

const SERVICES: Array<[string, string, boolean]> = [
  ['TSM-SSH', 'SSH', false], ['ntpd', 'NTP Daemon', true], ['vpxa', 'VMware vCenter Agent', true], ['hostd', 'Host daemon', true],
];

export function addHostManagers(model: Model, hostMoid: string, datastores: MoRef[]): DataObject {
  const refs: Record<string, MoRef> = {};
  for (const [field, type, prefix] of HOST_MANAGERS) refs[field] = ref(type, `${prefix}-${hostMoid.replace(/^host-/, '')}`);
  const add = (field: string, props: Record<string, unknown>): void => {
    model.add(new PlainObject(refs[field]!.type, refs[field]!.value, props));
  };
  add('cpuScheduler', { hyperthreadInfo: data('HostHyperThreadScheduleInfo', { available: true, active: true, config: true }) });
  add('datastoreSystem', { datastore: datastores, capabilities: data('HostDatastoreSystemCapabilities', { nfsMountCreationRequired: true, nfsMountCreationSupported: true, localDatastoreSupported: true }) });
  add('memoryManager', {});
  add('storageSystem', { storageDeviceInfo: data('HostStorageDeviceInfo', { hostBusAdapter: [], scsiLun: [], softwareInternetScsiEnabled: false }) });
  add('networkSystem', { networkInfo: data('HostNetworkInfo', { vswitch: [], portgroup: [], pnic: [], vnic: [] }) });
  add('vmotionSystem', {});
  add('serviceSystem', {
    serviceInfo: data('HostServiceInfo', {
      service: SERVICES.map(([key, label, running]) => data('HostService', { key, label, required: false, uninstallable: false, running, ruleset: [], policy: running ? 'on' : 'off' })),
    }),
  });
  add('firewallSystem', { firewallInfo: data('HostFirewallInfo', { defaultPolicy: data('HostFirewallDefaultPolicy', { incomingBlocked: true, outgoingBlocked: true }), ruleset: [] }) });
  add('advancedOption', { setting: [data('OptionValue', { key: 'Misc.HostName', value: new AnyValue(hostMoid) })], supportedOption: arrayOf('OptionDef', []) });
  add('dateTimeSystem', { dateTimeInfo: data('HostDateTimeInfo', { timeZone: data('HostDateTimeSystemTimeZone', { key: 'UTC', name: 'UTC', description: 'UTC', gmtOffset: 0 }), ntpConfig: data('HostNtpConfig', { server: ['pool.ntp.org'] }) }) });
  add('autoStartManager', { config: data('HostAutoStartManagerConfig', { defaults: data('AutoStartDefaults', { enabled: false, startDelay: 120, stopDelay: 120, waitForHeartbeat: false, stopAction: 'PowerOff' }), powerInfo: [] }) });
  model.add(new PlainObject('HostDatastoreBrowser', `hostDatastoreBrowser-${hostMoid}`, { datastore: datastores, supportedType: arrayOf('FileQuery', []) }));
  return data('HostConfigManager', refs);
}

export function hostBrowser(hostMoid: string): MoRef {
  return ref('HostDatastoreBrowser', `hostDatastoreBrowser-${hostMoid}`);
}
