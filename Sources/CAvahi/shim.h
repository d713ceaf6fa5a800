#ifndef VAULT_CAVAHI_SHIM_H
#define VAULT_CAVAHI_SHIM_H
/* DNS-SD through Avahi, the system's mDNS daemon (issue 58): a service announced while a server runs, and the
 * services of a type found on the LAN. The daemon does the protocol; this only drives its client library, with its
 * callbacks kept in C so Swift sees two plain calls. */
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/simple-watch.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/timeval.h>
#include <stdint.h>
#include <sys/time.h>
#include <stdlib.h>
#include <string.h>

/* ---- Announcing: kept registered while the server runs, again after the daemon restarts or a name collides. ---- */

typedef struct vault_announcer {
    AvahiThreadedPoll *poll;
    AvahiClient *client;
    AvahiEntryGroup *group;
    char *name;
    char *type;
    uint16_t port;
    AvahiStringList *txt;
    int last_error;
    int established;
} vault_announcer;

static void vault_announcer_register(vault_announcer *a, AvahiClient *client);

static void vault_announcer_group_changed(AvahiEntryGroup *group, AvahiEntryGroupState state, void *userdata) {
    vault_announcer *a = userdata;
    switch (state) {
    case AVAHI_ENTRY_GROUP_ESTABLISHED:
        a->established = 1;
        break;
    case AVAHI_ENTRY_GROUP_COLLISION: {
        /* Another service has this name on the LAN: take the next one ("Room 7 #2") and register again. */
        char *next = avahi_alternative_service_name(a->name);
        avahi_free(a->name);
        a->name = next;
        avahi_entry_group_reset(group);
        vault_announcer_register(a, avahi_entry_group_get_client(group));
        break;
    }
    case AVAHI_ENTRY_GROUP_FAILURE:
        a->last_error = avahi_client_errno(avahi_entry_group_get_client(group));
        break;
    default:
        break;
    }
}

static void vault_announcer_register(vault_announcer *a, AvahiClient *client) {
    if (!a->group) {
        a->group = avahi_entry_group_new(client, vault_announcer_group_changed, a);
        if (!a->group) {
            a->last_error = avahi_client_errno(client);
            return;
        }
    }
    if (!avahi_entry_group_is_empty(a->group)) return;
    for (int tries = 0; tries < 20; tries++) {
        int result = avahi_entry_group_add_service_strlst(
            a->group, AVAHI_IF_UNSPEC, AVAHI_PROTO_UNSPEC, 0, a->name, a->type, NULL, NULL, a->port, a->txt);
        if (result == AVAHI_ERR_COLLISION) {
            char *next = avahi_alternative_service_name(a->name);
            avahi_free(a->name);
            a->name = next;
            avahi_entry_group_reset(a->group);
            continue;
        }
        if (result < 0) {
            a->last_error = result;
            return;
        }
        result = avahi_entry_group_commit(a->group);
        if (result < 0) a->last_error = result;
        return;
    }
}

static void vault_announcer_client_changed(AvahiClient *client, AvahiClientState state, void *userdata) {
    vault_announcer *a = userdata;
    switch (state) {
    case AVAHI_CLIENT_S_RUNNING:
        vault_announcer_register(a, client);
        break;
    case AVAHI_CLIENT_S_COLLISION:
    case AVAHI_CLIENT_S_REGISTERING:
        /* The host's name changed or collided: the daemon re-registers; our group goes again once it runs. */
        a->established = 0;
        if (a->group) avahi_entry_group_reset(a->group);
        break;
    case AVAHI_CLIENT_FAILURE:
        a->last_error = avahi_client_errno(client);
        a->established = 0;
        if (avahi_client_errno(client) == AVAHI_ERR_DISCONNECTED) {
            /* The daemon went away (restarted): a new client waits for it and registers again when it is back. */
            int error = 0;
            a->group = NULL;
            avahi_client_free(client);
            a->client = avahi_client_new(avahi_threaded_poll_get(a->poll), AVAHI_CLIENT_NO_FAIL, vault_announcer_client_changed, a, &error);
            if (!a->client) a->last_error = error;
        }
        break;
    default:
        break;
    }
}

/* Starts announcing `name` (type e.g. "_vault._tcp") on `port` with the TXT strings ("key=value"). Waits for the
 * daemon when it is not running yet. NULL with *error set when the client cannot be made at all. */
static inline vault_announcer *vault_announce_start(const char *name, const char *type, uint16_t port, const char *const *txt, int count,
                                                    int *error) {
    vault_announcer *a = calloc(1, sizeof(vault_announcer));
    if (!a) return NULL;
    a->poll = avahi_threaded_poll_new();
    if (!a->poll) {
        free(a);
        *error = AVAHI_ERR_NO_MEMORY;
        return NULL;
    }
    a->name = avahi_strdup(name);
    a->type = avahi_strdup(type);
    a->port = port;
    for (int index = count - 1; index >= 0; index--) a->txt = avahi_string_list_add(a->txt, txt[index]);
    a->client = avahi_client_new(avahi_threaded_poll_get(a->poll), AVAHI_CLIENT_NO_FAIL, vault_announcer_client_changed, a, error);
    if (!a->client || avahi_threaded_poll_start(a->poll) < 0) {
        if (a->client) avahi_client_free(a->client);
        avahi_threaded_poll_free(a->poll);
        avahi_string_list_free(a->txt);
        avahi_free(a->name);
        avahi_free(a->type);
        free(a);
        return NULL;
    }
    return a;
}

/* 1 once the daemon confirmed the announcement; the last error (an Avahi code, 0 for none) in *error. */
static inline int vault_announce_state(vault_announcer *a, int *error) {
    avahi_threaded_poll_lock(a->poll);
    int established = a->established;
    *error = a->last_error;
    avahi_threaded_poll_unlock(a->poll);
    return established;
}

/* Withdraws the announcement (the daemon sends the LAN its goodbye) and frees everything. */
static inline void vault_announce_stop(vault_announcer *a) {
    avahi_threaded_poll_stop(a->poll);
    if (a->client) avahi_client_free(a->client);
    avahi_threaded_poll_free(a->poll);
    avahi_string_list_free(a->txt);
    avahi_free(a->name);
    avahi_free(a->type);
    free(a);
}

/* ---- Browsing: every service of a type on the LAN, resolved to an address and port, within a time limit. ---- */

typedef struct vault_found {
    char name[256];
    char host[256];
    char address[AVAHI_ADDRESS_STR_MAX];
    uint16_t port;
    /* The TXT strings, each ended by a newline. */
    char txt[2048];
} vault_found;

typedef struct vault_browsing {
    AvahiClient *client;
    vault_found *out;
    int max;
    int count;
    int pending;
    int all_for_now;
    int failed;
} vault_browsing;

static void vault_browse_resolved(AvahiServiceResolver *resolver, AvahiIfIndex interface, AvahiProtocol protocol, AvahiResolverEvent event,
                                  const char *name, const char *type, const char *domain, const char *host, const AvahiAddress *address,
                                  uint16_t port, AvahiStringList *txt, AvahiLookupResultFlags flags, void *userdata) {
    (void)interface; (void)protocol; (void)type; (void)domain; (void)flags;
    vault_browsing *b = userdata;
    if (event == AVAHI_RESOLVER_FOUND && b->count < b->max) {
        vault_found *found = &b->out[b->count++];
        memset(found, 0, sizeof(*found));
        strncpy(found->name, name ? name : "", sizeof(found->name) - 1);
        strncpy(found->host, host ? host : "", sizeof(found->host) - 1);
        if (address) avahi_address_snprint(found->address, sizeof(found->address), address);
        found->port = port;
        size_t used = 0;
        for (AvahiStringList *item = txt; item; item = avahi_string_list_get_next(item)) {
            size_t size = avahi_string_list_get_size(item);
            if (used + size + 1 >= sizeof(found->txt)) break;
            memcpy(found->txt + used, avahi_string_list_get_text(item), size);
            used += size;
            found->txt[used++] = '\n';
        }
    }
    avahi_service_resolver_free(resolver);
    b->pending--;
}

static void vault_browse_changed(AvahiServiceBrowser *browser, AvahiIfIndex interface, AvahiProtocol protocol, AvahiBrowserEvent event,
                                 const char *name, const char *type, const char *domain, AvahiLookupResultFlags flags, void *userdata) {
    (void)browser; (void)flags;
    vault_browsing *b = userdata;
    switch (event) {
    case AVAHI_BROWSER_NEW:
        if (avahi_service_resolver_new(b->client, interface, protocol, name, type, domain, AVAHI_PROTO_INET, 0, vault_browse_resolved, b))
            b->pending++;
        break;
    case AVAHI_BROWSER_ALL_FOR_NOW:
        b->all_for_now = 1;
        break;
    case AVAHI_BROWSER_FAILURE:
        b->failed = 1;
        break;
    default:
        break;
    }
}

static void vault_browse_client_changed(AvahiClient *client, AvahiClientState state, void *userdata) {
    (void)client; (void)state; (void)userdata;
}

/* Up to `max` services of `type` on IPv4, resolved, within `timeout_ms`; how many were found, or -1 with *error set
 * (the daemon is not running: AVAHI_ERR_NO_DAEMON). */
static inline int vault_browse(const char *type, int timeout_ms, vault_found *out, int max, int *error) {
    AvahiSimplePoll *poll = avahi_simple_poll_new();
    if (!poll) {
        *error = AVAHI_ERR_NO_MEMORY;
        return -1;
    }
    vault_browsing b = {0};
    b.out = out;
    b.max = max;
    b.client = avahi_client_new(avahi_simple_poll_get(poll), 0, vault_browse_client_changed, NULL, error);
    if (!b.client) {
        avahi_simple_poll_free(poll);
        return -1;
    }
    AvahiServiceBrowser *browser = avahi_service_browser_new(b.client, AVAHI_IF_UNSPEC, AVAHI_PROTO_INET, type, NULL, 0, vault_browse_changed, &b);
    if (!browser) {
        *error = avahi_client_errno(b.client);
        avahi_client_free(b.client);
        avahi_simple_poll_free(poll);
        return -1;
    }
    struct timeval deadline;
    avahi_elapse_time(&deadline, (unsigned)timeout_ms, 0);
    while (!b.failed && !(b.all_for_now && b.pending == 0)) {
        struct timeval now;
        gettimeofday(&now, NULL);
        AvahiUsec left = avahi_timeval_diff(&deadline, &now);
        if (left <= 0) break;
        if (avahi_simple_poll_iterate(poll, (int)(left / 1000 > 100 ? 100 : left / 1000 + 1)) != 0) break;
    }
    avahi_service_browser_free(browser);
    avahi_client_free(b.client);
    avahi_simple_poll_free(poll);
    *error = b.failed ? AVAHI_ERR_FAILURE : 0;
    return b.count;
}

static inline const char *vault_avahi_error(int error) { return avahi_strerror(error); }

#endif
