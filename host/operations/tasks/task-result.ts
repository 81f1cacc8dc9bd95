// task_result: `GET /v1/tasks/{task_id}`, the result_url of a done event: the GET form of svc_poll.
import { FREE, type Operation } from '../operation.ts';
import { taskReply } from './poll.ts';
import { keyedTask } from './task-events.ts';

/** GET /v1/tasks/{task_id}: a done event's result_url; answers exactly as svc_poll does for the task. */
export const taskResultOperation: Operation = {
  name: 'task_result',
  resource: 'tasks',
  path: '/v1/tasks/:task_id',
  method: 'GET',
  auth: 'key',
  body: 'none',
  title: 'The result of a task',
  description:
    'The result_url of a done event (svc_task_events): with the key that asked, 202 with the stage and progress while ' +
    'the task runs, then exactly the reply the ask would have given; a failed task answers its problem. Same as ' +
    'svc_poll with {task_id}. ' +
    FREE,
  status: 200,
  pending: true,
  examples: [],
  run: async (ctx, _body, req) => {
    const taskId = req.params.task_id ?? '';
    await keyedTask(ctx, taskId);
    return taskReply(ctx, taskId, 'task_id', req);
  },
};
