// svc_poll entry point for the transports (the behaviour lives in ./tasks.ts).
export { pollOperation } from './tasks.ts';
