module tracewire.test/goprog

go 1.22
