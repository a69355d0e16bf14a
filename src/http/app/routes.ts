/** Every route group, each given the narrow services it uses (built from the container). */
import {
  channelRouteDeps,
  conversationDeps,
  mailSender,
  messageDeps,
  broadcastDeps,
  botDeps,
  onboardingDeps,
  probeServices,
  providerTargets,
  templateDeps,
  webhookDeps,
  type Container,
} from '../../container.ts';
import { createEventHub } from '../../domain/events/stream.ts';
import { authenticate, type AuthDeps } from '../auth/authenticate.ts';
import type { App } from '../types.ts';
import { registerDashboard } from '../dashboard.ts';
import { registerDocsRoutes } from '../v1/docs.ts';
import { registerHealthRoutes } from '../v1/health.ts';
import { registerProbeRoutes } from '../probes.ts';
import { loginThrottleOf, registerAuthRoutes } from '../v1/auth.ts';
import { registerApiKeyRoutes } from '../v1/api-keys.ts';
import { registerChannelRoutes } from '../v1/channels.ts';
import { registerChatRoutes } from '../v1/chats.ts';
import { registerGroupRoutes } from '../v1/groups.ts';
import { registerLabelRoutes } from '../v1/labels.ts';
import { registerChannelProfileRoutes } from '../v1/channel-profiles.ts';
import { registerChannelCallRoutes } from '../v1/channel-calls.ts';
import { registerTemplateRoutes } from '../v1/templates.ts';
import { registerBizapiRoutes } from '../v1/bizapi.ts';
import { registerContactMergeRoutes } from '../v1/contacts-merge.ts';
import { registerContactRoutes } from '../v1/contacts.ts';
import { registerOptOutRoutes } from '../v1/opt-out.ts';
import { registerBusinessHoursRoutes } from '../v1/business-hours.ts';
import { registerTimelineRoutes } from '../v1/timeline.ts';
import { registerCompanyRoutes } from '../v1/companies.ts';
import { registerOrderRoutes } from '../v1/orders.ts';
import { registerCrmImportRoutes } from '../v1/crm-import.ts';
import { registerSegmentRoutes } from '../v1/segments.ts';
import { registerBroadcastRoutes } from '../v1/broadcasts.ts';
import { registerListRoutes } from '../v1/lists.ts';
import { registerPipelineRoutes } from '../v1/pipelines.ts';
import { registerDealRoutes } from '../v1/deals.ts';
import { registerTaskRoutes } from '../v1/tasks.ts';
import { registerSearchRoutes } from '../v1/search.ts';
import { registerCannedResponseRoutes } from '../v1/canned-responses.ts';
import { registerAutomationRoutes } from '../v1/automations.ts';
import { registerBotRoutes } from '../v1/bots.ts';
import { registerRelationshipRoutes } from '../v1/relationships.ts';
import { registerCommentRoutes } from '../v1/comments.ts';
import { registerMessageRoutes } from '../v1/messages.ts';
import { registerConversationRoutes } from '../v1/conversations.ts';
import { registerConversationWorkflowRoutes } from '../v1/conversation-workflow.ts';
import { registerCsatRoutes } from '../v1/csat.ts';
import { registerTeamRoutes } from '../v1/teams.ts';
import { registerProviderWebhookRoutes } from '../providers/webhooks.ts';
import { registerWebhookRoutes } from '../v1/webhooks.ts';
import { registerEventRoutes } from '../v1/events.ts';
import { registerSandboxRoutes } from '../sandbox/routes.ts';
import { registerAuthorizeRoutes } from '../oauth/authorize.ts';
import { registerDeviceRoutes } from '../oauth/device.ts';
import { registerOAuthClientRoutes } from '../v1/oauth-clients.ts';
import { registerAuthorizationRoutes } from '../v1/authorizations.ts';
import { registerOrganizationRoutes } from '../v1/organizations.ts';
import { registerInvitationRoutes } from '../v1/invitations.ts';
import { registerDiscoveryRoutes } from '../oauth/discovery.ts';
import { registerIntrospectRoutes } from '../oauth/introspect.ts';
import { registerRevokeRoutes } from '../oauth/revoke.ts';
import { registerTokenRoutes } from '../oauth/token.ts';
import { registerAccountRoutes } from '../v1/account.ts';
import { registerSignupRoutes } from '../v1/signup.ts';
import { registerPasswordResetRoutes } from '../v1/password-resets.ts';

export async function registerRouteGroups(
  app: App,
  container: Container,
  shared: { authDeps: AuthDeps; dashboardCsp: string },
): Promise<void> {
  const { config } = container;
  const { authDeps, dashboardCsp } = shared;
  await registerHealthRoutes(app, { pingDatabase: () => container.database.ping(), pingQueue: () => container.queue.ping() });
  await registerProbeRoutes(app, probeServices(container));
  await registerAuthRoutes(app, { db: container.database.db, clock: container.clock, settings: config });
  const oauthFlows = { db: container.database.db, clock: container.clock };
  await registerAuthorizeRoutes(app, {
    ...oauthFlows,
    settings: { appUrl: config.appUrl, baseUrl: config.baseUrl, codeTtlMs: config.oauth.codeTtlMs },
  });
  await registerDeviceRoutes(app, {
    ...oauthFlows,
    settings: {
      appUrl: config.appUrl,
      deviceCodeTtlMs: config.oauth.deviceCodeTtlMs,
      devicePollIntervalMs: config.oauth.devicePollIntervalMs,
    },
  });
  // A change this process makes to OAuth access (a revocation, a client changed) is forgotten here at once; other processes hear of it from the database.
  const forgetOAuth = () => {
    container.bearer.forget();
    container.oauthClients.forget();
  };
  const tokenServices = { db: container.database.db, clock: container.clock, clients: container.oauthClients.find };
  await registerTokenRoutes(app, {
    ...tokenServices,
    forget: forgetOAuth,
    lifetimes: { accessTokenTtlMs: config.oauth.accessTokenTtlMs, refreshTokenTtlMs: config.oauth.refreshTokenTtlMs },
  });
  await registerIntrospectRoutes(app, tokenServices);
  await registerRevokeRoutes(app, { ...tokenServices, forget: forgetOAuth });
  await registerDiscoveryRoutes(app, { baseUrl: config.baseUrl });
  await registerApiKeyRoutes(app, { db: container.database.db, clock: container.clock, apiKeys: container.apiKeys });
  await registerOAuthClientRoutes(app, { ...oauthFlows, forget: forgetOAuth });
  await registerAuthorizationRoutes(app, { ...oauthFlows, forget: forgetOAuth });
  const credentials = {
    forget: () => {
      container.apiKeys.forget();
      forgetOAuth();
    },
  };
  await registerOrganizationRoutes(app, { db: container.database.db, clock: container.clock, credentials });
  await registerInvitationRoutes(app, {
    db: container.database.db,
    clock: container.clock,
    settings: {
      ttlMs: config.invitationTtlMs,
      appUrl: config.appUrl,
      sessionTtlHours: config.sessionTtlHours,
      secureCookies: config.secureCookies,
    },
    sendMail: mailSender(container, 'invitation'),
  });
  const channelRoutes = channelRouteDeps(container);
  await registerChannelRoutes(app, channelRoutes);
  await registerGroupRoutes(app, channelRoutes.channels);
  await registerLabelRoutes(app, channelRoutes.channels);
  await registerChatRoutes(app, { ...channelRoutes.pairing, messages: messageDeps(container) });
  await registerChannelProfileRoutes(app, { ...channelRoutes.pairing, targets: providerTargets(config) });
  await registerChannelCallRoutes(app, { ...channelRoutes.pairing, messages: messageDeps(container) });
  await registerTemplateRoutes(app, templateDeps(container));
  await registerBizapiRoutes(app, onboardingDeps(container));
  await registerContactRoutes(app, { db: container.database.db, clock: container.clock });
  await registerContactMergeRoutes(app, { db: container.database.db, clock: container.clock });
  await registerOptOutRoutes(app, { db: container.database.db, clock: container.clock });
  await registerBusinessHoursRoutes(app, { db: container.database.db, clock: container.clock });
  const crm = { db: container.database.db, clock: container.clock };
  await registerCompanyRoutes(app, crm);
  await registerPipelineRoutes(app, crm);
  await registerDealRoutes(app, crm);
  await registerTaskRoutes(app, crm);
  await registerTimelineRoutes(app, crm);
  await registerRelationshipRoutes(app, crm);
  await registerCommentRoutes(app, crm);
  await registerSearchRoutes(app, crm);
  await registerOrderRoutes(app, crm);
  await registerCrmImportRoutes(app, crm);
  await registerListRoutes(app, crm);
  await registerSegmentRoutes(app, crm);
  await registerBroadcastRoutes(app, broadcastDeps(container));
  await registerMessageRoutes(app, messageDeps(container), { db: container.database.db, store: container.mediaStore });
  const conversations = conversationDeps(container);
  await registerConversationRoutes(app, conversations);
  await registerConversationWorkflowRoutes(app, conversations);
  await registerCsatRoutes(app, { db: container.database.db, clock: container.clock });
  await registerTeamRoutes(app, { db: container.database.db, clock: container.clock, queue: conversations.hooks.queue! });
  await registerCannedResponseRoutes(app, { db: container.database.db, clock: container.clock });
  await registerAutomationRoutes(app, {
    db: container.database.db,
    clock: container.clock,
    sealer: container.sealer,
    policy: { allowPrivate: config.allowPrivateNetworkTargets },
  });
  await registerBotRoutes(app, botDeps(container));
  await registerWebhookRoutes(app, webhookDeps(container));
  // One LISTEN for every event stream this process serves; stopped when the server closes.
  const eventHub = createEventHub({ database: container.database, logger: container.logger, pollMs: config.eventStream.pollMs });
  app.addHook('onClose', () => eventHub.close());
  await registerEventRoutes(app, {
    database: container.database,
    retentionDays: config.eventRetentionDays,
    hub: eventHub,
    stream: {
      heartbeatMs: config.eventStream.heartbeatMs,
      maxPerCredential: config.eventStream.maxPerCredential,
      maxPerOrganization: config.eventStream.maxPerOrganization,
    },
    // An open stream's credential, checked again as the request first was (a revoked one ends the stream).
    reauthenticate: (request) => authenticate(request, request.routeOptions.config.auth ?? {}, authDeps),
  });
  await registerProviderWebhookRoutes(app, {
    db: container.database.db,
    queue: container.queue,
    clock: container.clock,
    logger: container.logger,
    sealer: container.sealer,
    providers: container.providers,
    installationSecrets: () => [config.official.appSecret, container.sandbox?.officialAppSecret].filter((s): s is string => Boolean(s)),
    installationVerifyTokens: () =>
      [config.official.verifyToken, container.sandbox?.officialVerifyToken].filter((s): s is string => Boolean(s)),
  });
  const accounts = { db: container.database.db, clock: container.clock };
  await registerAccountRoutes(app, { ...accounts, throttle: loginThrottleOf(config) });
  await registerSignupRoutes(app, { ...accounts, settings: config });
  await registerPasswordResetRoutes(app, { ...accounts, settings: config, sendMail: mailSender(container, 'password-reset') });
  if (config.providerSandbox) await registerSandboxRoutes(app, container);
  await registerDocsRoutes(app, { upgradeInsecureRequests: config.secureCookies });
  await registerDashboard(app, { contentSecurityPolicy: dashboardCsp });
}
