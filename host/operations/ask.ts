// svc_ask entry point for the transports (the behaviour lives in ./ask/).
export { askOperation, CONTRACT } from './ask/index.ts';
