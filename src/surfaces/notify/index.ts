/** Notifications, the sending half: webhooks, commands and desktop notifications for the questions a host opens. */
export { startNotifications } from './start.js';
export type { Notifications, NotificationsOptions, NotifySetup } from './start.js';
export { notificationsFromConfig, inboxLink } from './from-config.js';
export type { Outcome } from './senders.js';
