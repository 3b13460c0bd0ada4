// vim25 method faults. Handlers throw a VimFault; the HTTP layer turns it into a SOAP fault
// (HTTP 500) and the task engine into `info.error` (a LocalizedMethodFault). Messages follow
// vCenter's English wording where clients are known to match on it.

import { data, type DataObject, type MoRef } from './vim-values.js';

export class VimFault extends Error {
  constructor(
    /** vim25 fault type, e.g. `InvalidPowerState`; written as `<XxxFault xsi:type="Xxx">`. */
    readonly faultType: string,
    message: string,
    /** Fields of the fault data object, in wire order. */
    readonly fields: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'VimFault';
  }

  /** The LocalizedMethodFault a task's `info.error` carries. */
  toLocalized(): DataObject {
    return data('LocalizedMethodFault', {
      fault: data(this.faultType, this.fields),
      localizedMessage: this.message,
    });
  }
}

export const faults = {
  notAuthenticated(obj: MoRef, method: string): VimFault {
    return new VimFault('NotAuthenticated', 'The session is not authenticated.', {
      object: obj,
      privilegeId: method === 'RetrievePropertiesEx' ? 'System.View' : 'System.Anonymous',
    });
  },
  invalidLogin(): VimFault {
    return new VimFault('InvalidLogin', 'Cannot complete login due to an incorrect user name or password.');
  },
  managedObjectNotFound(obj: MoRef): VimFault {
    return new VimFault(
      'ManagedObjectNotFound',
      `The object 'vim.${obj.type}:${obj.value}' has already been deleted or has not been completely created`,
      { obj },
    );
  },
  methodNotFound(receiver: MoRef, method: string): VimFault {
    return new VimFault('MethodNotFound', `Method ${method} not found on ${receiver.type}.`, { receiver, method });
  },
  invalidArgument(property: string, message = 'A specified parameter was not correct: '): VimFault {
    return new VimFault('InvalidArgument', `${message}${property}`, { invalidProperty: property });
  },
  invalidProperty(name: string): VimFault {
    return new VimFault('InvalidProperty', `Property '${name}' is not valid.`, { name });
  },
  invalidType(argument: string): VimFault {
    return new VimFault('InvalidType', `Invalid type: ${argument}`, { argument });
  },
  invalidPowerState(requested: string | undefined, existing: string): VimFault {
    const label = existing === 'poweredOn' ? 'Powered on' : existing === 'poweredOff' ? 'Powered off' : 'Suspended';
    return new VimFault(
      'InvalidPowerState',
      `The attempted operation cannot be performed in the current state (${label}).`,
      { requestedState: requested, existingState: existing },
    );
  },
  invalidState(): VimFault {
    return new VimFault('InvalidState', 'The operation is not allowed in the current state.');
  },
  toolsUnavailable(): VimFault {
    return new VimFault('ToolsUnavailable', 'Cannot complete operation because VMware Tools is not running in this virtual machine.');
  },
  notFound(message: string): VimFault {
    return new VimFault('NotFound', message);
  },
  duplicateName(name: string, object: MoRef): VimFault {
    return new VimFault('DuplicateName', `The name '${name}' already exists.`, { name, object });
  },
  invalidDeviceSpec(index: number, property: string): VimFault {
    return new VimFault('InvalidDeviceSpec', `Invalid configuration for device '${index}'.`, {
      property,
      deviceIndex: index,
    });
  },
  requestCanceled(): VimFault {
    return new VimFault('RequestCanceled', 'The task was canceled by a user.');
  },
  systemError(reason: string): VimFault {
    return new VimFault('SystemError', reason, { reason });
  },
  invalidName(name: string): VimFault {
    return new VimFault('InvalidName', `The name '${name}' is invalid.`, { name });
  },
  notSupported(): VimFault {
    return new VimFault('NotSupported', 'The operation is not supported on the object.');
  },
};
