module tracewire.test/benchprog

go 1.22
