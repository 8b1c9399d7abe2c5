import TabPolicy
