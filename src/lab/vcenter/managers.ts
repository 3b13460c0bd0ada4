// The service managers a client expects to find in ServiceContent beyond the ones the lab
// simulates in depth: authorization (roles, permissions), licensing, custom fields, extensions,
// guest operations, settings, and the rest. They answer their common read properties and methods
// minimally but with valid vim25 shapes, so govc's role.ls / license.ls / field.ls /
// extension.ls / permissions.ls work and no client meets a nil manager reference.

import { faults } from './faults.js';
import { PlainObject, type Model } from './model.js';
import { AnyValue, arrayOf, data, ref, time, type DataObject, type MoRef } from './vim-values.js';

/** ServiceContent field -> [managed type, vCenter's moid]. Written in WSDL order. */
export const SERVICE_MANAGERS: Array<[field: string, type: string, moid: string]> = [
  ['setting', 'OptionManager', 'VpxSettings'],
  ['userDirectory', 'UserDirectory', 'UserDirectory'],
  ['authorizationManager', 'AuthorizationManager', 'AuthorizationManager'],
  ['serviceManager', 'ServiceManager', 'ServiceMgr'],
  ['scheduledTaskManager', 'ScheduledTaskManager', 'ScheduledTaskManager'],
  ['alarmManager', 'AlarmManager', 'AlarmManager'],
  ['extensionManager', 'ExtensionManager', 'ExtensionManager'],
  ['customFieldsManager', 'CustomFieldsManager', 'CustomFieldsManager'],
  ['diagnosticManager', 'DiagnosticManager', 'DiagMgr'],
  ['licenseManager', 'LicenseManager', 'LicenseManager'],
  ['fileManager', 'FileManager', 'FileManager'],
  ['virtualDiskManager', 'VirtualDiskManager', 'virtualDiskManager'],
  ['vmProvisioningChecker', 'VirtualMachineProvisioningChecker', 'ProvChecker'],
  ['vmCompatibilityChecker', 'VirtualMachineCompatibilityChecker', 'CompatChecker'],
  ['ovfManager', 'OvfManager', 'OvfManager'],
  ['ipPoolManager', 'IpPoolManager', 'IpPoolManager'],
  ['dvSwitchManager', 'DistributedVirtualSwitchManager', 'DVSManager'],
  ['hostProfileManager', 'HostProfileManager', 'HostProfileManager'],
  ['clusterProfileManager', 'ClusterProfileManager', 'ClusterProfileManager'],
  ['complianceManager', 'ProfileComplianceManager', 'MoComplianceManager'],
  ['localizationManager', 'LocalizationManager', 'LocalizationManager'],
  ['storageResourceManager', 'StorageResourceManager', 'StorageResourceManager'],
  ['guestOperationsManager', 'GuestOperationsManager', 'guestOperationsManager'],
];

const ROLES: Array<[number, string, string]> = [
  [-6, 'NoCryptoAdmin', 'No cryptography administrator'],
  [-5, 'NoAccess', 'No access'],
  [-4, 'Anonymous', 'Anonymous'],
  [-3, 'View', 'Visible only'],
  [-2, 'ReadOnly', 'Read-only'],
  [-1, 'Admin', 'Administrator'],
];

const PRIVILEGES = ['System.Anonymous', 'System.View', 'System.Read', 'VirtualMachine.Interact.PowerOn', 'VirtualMachine.Interact.PowerOff',
  'VirtualMachine.State.CreateSnapshot', 'VirtualMachine.State.RevertToSnapshot', 'VirtualMachine.State.RemoveSnapshot',
  'VirtualMachine.Config.CPUCount', 'VirtualMachine.Config.Memory', 'VirtualMachine.Provisioning.Clone', 'VirtualMachine.Inventory.Delete',
  'Resource.HotMigrate', 'Datastore.Browse'];

function description(label: string, summary: string): DataObject {
  return data('Description', { label, summary });
}

export function role(id: number, name: string, label: string): DataObject {
  const privileges = name === 'Admin' ? PRIVILEGES : name === 'ReadOnly' || name === 'View' ? ['System.Anonymous', 'System.View', 'System.Read'] : ['System.Anonymous'];
  return data('AuthorizationRole', { roleId: id, system: true, name, info: description(label, label), privilege: privileges });
}

/** The permissions vCenter ships with on the root folder. */
export function rootPermissions(rootFolder: string, adminUser = 'VSPHERE.LOCAL\\Administrator'): DataObject[] {
  const entity = ref('Folder', rootFolder);
  return [
    data('Permission', { entity, principal: adminUser, group: false, roleId: -1, propagate: true }),
    data('Permission', { entity, principal: 'VSPHERE.LOCAL\\Administrators', group: true, roleId: -1, propagate: true }),
    data('Permission', { entity, principal: 'VSPHERE.LOCAL\\ReadOnlyUsers', group: true, roleId: -2, propagate: true }),
  ];
}

function license(): DataObject {
  return data('LicenseManagerLicenseInfo', {
    licenseKey: '00000-00000-00000-00000-00000', editionKey: 'eval', name: 'Evaluation Mode', total: 0, used: 0, costUnit: '',
  });
}

export function addServiceManagers(model: Model, started: number): void {
  const add = (type: string, moid: string, props: Record<string, unknown> = {}): void => {
    model.add(new PlainObject(type, moid, props));
  };
  add('OptionManager', 'VpxSettings', {
    // OptionValue.value is xsd:anyType: it carries its xsi:type.
    setting: [
      data('OptionValue', { key: 'VirtualCenter.InstanceName', value: new AnyValue('vcenter') }),
      data('OptionValue', { key: 'event.maxAge', value: new AnyValue(30) }),
    ],
    supportedOption: arrayOf('OptionDef', []),
  });
  add('UserDirectory', 'UserDirectory', { domainList: ['VSPHERE.LOCAL'] });
  add('AuthorizationManager', 'AuthorizationManager', {
    roleList: ROLES.map(([id, name, label]) => role(id, name, label)),
    privilegeList: PRIVILEGES.map((p) => data('AuthorizationPrivilege', {
      privId: p, onParent: false, name: p.slice(p.lastIndexOf('.') + 1), privGroupName: p.slice(0, p.lastIndexOf('.')),
    })),
    description: data('AuthorizationDescription', { privilege: [], privilegeGroup: [] }),
  });
  add('ServiceManager', 'ServiceMgr', { service: arrayOf('ServiceManagerServiceInfo', []) });
  add('ScheduledTaskManager', 'ScheduledTaskManager', { scheduledTask: arrayOf('ManagedObjectReference', []), description: data('ScheduledTaskDescription', { action: [], schedulerInfo: [], state: [], dayOfWeek: [], weekOfMonth: [] }) });
  add('AlarmManager', 'AlarmManager', { defaultExpression: arrayOf('AlarmExpression', []), description: data('AlarmDescription', { expr: [], stateOperator: [], metricOperator: [], hostSystemConnectionState: [], virtualMachinePowerState: [], datastoreConnectionState: [], hostSystemPowerState: [], virtualMachineGuestHeartbeatStatus: [], entityStatus: [], action: [] }) });
  add('ExtensionManager', 'ExtensionManager', {
    extensionList: [data('Extension', {
      description: description('Zerto Virtual Manager', 'Zerto Virtual Replication'), key: 'com.zerto.plugin', company: 'Zerto',
      version: '10.0', lastHeartbeatTime: time(started), shownInSolutionManager: false,
    })],
  });
  add('CustomFieldsManager', 'CustomFieldsManager', { field: arrayOf('CustomFieldDef', []) });
  add('DiagnosticManager', 'DiagMgr');
  add('LicenseManager', 'LicenseManager', {
    source: data('EvaluationLicenseSource', { remainingHours: 1440 }), sourceAvailable: true, licenses: [license()],
    licenseAssignmentManager: ref('LicenseAssignmentManager', 'LicenseAssignmentManager'),
    evaluation: data('LicenseManagerEvaluationInfo', { properties: [] }),
  });
  add('LicenseAssignmentManager', 'LicenseAssignmentManager');
  add('FileManager', 'FileManager');
  add('VirtualDiskManager', 'virtualDiskManager');
  add('VirtualMachineProvisioningChecker', 'ProvChecker');
  add('VirtualMachineCompatibilityChecker', 'CompatChecker');
  add('OvfManager', 'OvfManager', { ovfImportOption: arrayOf('OvfOptionInfo', []), ovfExportOption: arrayOf('OvfOptionInfo', []) });
  add('IpPoolManager', 'IpPoolManager');
  add('DistributedVirtualSwitchManager', 'DVSManager');
  add('HostProfileManager', 'HostProfileManager', { profile: arrayOf('ManagedObjectReference', []) });
  add('ClusterProfileManager', 'ClusterProfileManager', { profile: arrayOf('ManagedObjectReference', []) });
  add('ProfileComplianceManager', 'MoComplianceManager');
  add('LocalizationManager', 'LocalizationManager', { catalog: arrayOf('LocalizationManagerMessageCatalog', []) });
  add('StorageResourceManager', 'StorageResourceManager');
  add('GuestOperationsManager', 'guestOperationsManager', {
    authManager: ref('GuestAuthManager', 'guestOperationsAuthManager'),
    fileManager: ref('GuestFileManager', 'guestOperationsFileManager'),
    processManager: ref('GuestProcessManager', 'guestOperationsProcessManager'),
    guestWindowsRegistryManager: ref('GuestWindowsRegistryManager', 'guestOperationsGuestWindowsRegistryManager'),
    aliasManager: ref('GuestAliasManager', 'guestOperationsAliasManager'),
  });
  add('GuestAuthManager', 'guestOperationsAuthManager');
  add('GuestFileManager', 'guestOperationsFileManager');
  add('GuestProcessManager', 'guestOperationsProcessManager');
  add('GuestWindowsRegistryManager', 'guestOperationsGuestWindowsRegistryManager');
  add('GuestAliasManager', 'guestOperationsAliasManager');
}

/** RetrieveEntityPermissions: the root folder's permissions apply everywhere (they propagate). */
export function entityPermissions(model: Model, rootFolder: string, entity: MoRef | undefined, inherited: boolean): DataObject[] {
  if (!entity || !model.lookup(entity.value)) throw faults.managedObjectNotFound(entity ?? ref('ManagedEntity', ''));
  if (entity.value === rootFolder || inherited) return rootPermissions(rootFolder);
  return [];
}
