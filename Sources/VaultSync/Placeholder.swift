import VaultAPI
