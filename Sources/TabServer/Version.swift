// tabd's main.swift imports TabServer only; it names the version as TabdVersion.string.
@_exported import enum TabProtocol.TabdVersion
